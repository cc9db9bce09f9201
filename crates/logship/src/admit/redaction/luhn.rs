//! The Luhn check digit of payment card numbers.
//!
//! Why it exists: sixteen digits are often an order or account number; only the ones whose
//! Luhn checksum holds are redacted as cards. Must never: allocate or panic.

/// True when `digits` (ASCII digits only) pass the Luhn check.
pub(crate) fn valid(digits: impl DoubleEndedIterator<Item = u8>) -> bool {
    let mut sum = 0u32;
    for (i, d) in digits.rev().enumerate() {
        let mut v = u32::from(d.wrapping_sub(b'0'));
        if v > 9 {
            return false;
        }
        if i % 2 == 1 {
            v *= 2;
            if v > 9 {
                v -= 9;
            }
        }
        sum += v;
    }
    sum.is_multiple_of(10)
}
