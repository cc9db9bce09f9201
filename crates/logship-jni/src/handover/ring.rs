//! The ring's memory: the layout Java's `HandOver` writes and the reads and writes the
//! native side makes on it.
//!
//! Why it exists: the ring is one block of memory shared by many Java threads (the
//! producers) and one native thread (the consumer); every rule that keeps them from
//! reading each other's half-written bytes is here, in one place, with the test producer
//! that mirrors Java's. Must never: read a record before its producer published it, read
//! or write outside the block, or trust a length it has not checked against the ring.
//!
//! Layout (little-endian): `capacity` bytes of records (a power of two), then three
//! 128-byte lines: the tail (`u64`, bytes ever claimed; bit 63 set once closed), the
//! head (`u64`, bytes ever consumed) and the sleep word (`i32`, 1 while the consumer
//! waits to be woken). A record is an 8-byte header (`i32` total length, a multiple of 8,
//! written last; `i32` payload length, or -1 for padding) and its payload (`wire`'s
//! layout), at a position that is a multiple of 8. A producer claims `total` bytes by
//! moving the tail with a compare-and-set; one that would cross the end claims the bytes
//! to the end as well and writes them as padding. The consumer zeroes every byte it has
//! read before it moves the head past it, so a header not yet published reads 0.

#![allow(unsafe_code)]

use std::ptr::NonNull;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

/// A record's header: its total length, then its payload's.
pub const HEADER: usize = 8;
/// One line of the trailer (two cache lines, so that producers and consumer never share).
const LINE: usize = 128;
/// The bytes after the records: tail, head, sleep word.
pub const TRAILER: usize = 3 * LINE;
/// Bit 63 of the tail: the ring is closed (stop), or broken; producers take the direct path.
pub const CLOSED: u64 = 1 << 63;
/// The payload length a padding record carries.
const PADDING: i32 = -1;
/// The smallest and largest record area.
pub const MIN_CAPACITY: usize = 64 * 1024;
/// See [`MIN_CAPACITY`].
pub const MAX_CAPACITY: usize = 16 << 20;
/// The largest record the ring takes is this fraction of it; a larger event goes the
/// direct way (one JNI call), so that one event never waits for the whole ring.
pub const LARGEST_SHARE: usize = 4;

/// The record area for a queue of `queue_capacity` events: about 128 bytes an event (a
/// typical JVM event is 150 to 400), a power of two within the bounds.
pub fn capacity_for(queue_capacity: usize) -> usize {
    queue_capacity
        .saturating_mul(128)
        .clamp(MIN_CAPACITY, MAX_CAPACITY)
        .next_power_of_two()
}

/// A record the consumer may read.
#[derive(Debug, PartialEq, Eq)]
pub enum Next<'a> {
    /// An event's payload, and the bytes its record takes.
    Event(&'a [u8], usize),
    /// Padding to the end of the area: the bytes it takes.
    Padding(usize),
}

/// A header that no producer of this layout writes: the jar and the library disagree, or
/// something wrote into the ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the hand-over ring holds a record header this library does not write ({total} bytes, payload {payload}, at {at}); the jar and its native library disagree, reinstall the jar")]
pub struct Corrupt {
    total: i32,
    payload: i32,
    at: usize,
}

/// The shared block, seen from the native side.
#[derive(Debug)]
pub struct Ring {
    base: NonNull<u8>,
    capacity: usize,
}

// SAFETY: the block is shared by design. Every word two threads touch at once (tail, head,
// sleep word, record headers) is read and written through atomics; a record's other bytes
// are written by the one producer that claimed them before it publishes the header
// (release) and read by the consumer only after it has read the header (acquire), then
// zeroed by the consumer before it releases them (the head, release).
unsafe impl Send for Ring {}
// SAFETY: as for `Send`.
unsafe impl Sync for Ring {}

impl Ring {
    /// The ring over `len` bytes at `base`, or `None` when they do not make one: `len` is
    /// not a power of two of at least [`MIN_CAPACITY`] plus [`TRAILER`], or `base` is not
    /// 8-byte aligned.
    ///
    /// # Safety
    /// `base` must be valid for reads and writes of `len` bytes for as long as the `Ring`
    /// lives, and written by nothing but this layout's producers and this `Ring`.
    pub unsafe fn new(base: *mut u8, len: usize) -> Option<Ring> {
        let capacity = len.checked_sub(TRAILER)?;
        let base = NonNull::new(base)?;
        if !capacity.is_power_of_two()
            || capacity < MIN_CAPACITY
            || !(base.as_ptr() as usize).is_multiple_of(8)
        {
            return None;
        }
        Some(Ring { base, capacity })
    }

    /// Bytes of the record area.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    fn word(&self, at: usize) -> &AtomicU64 {
        debug_assert!(at.is_multiple_of(8) && at + 8 <= self.capacity + TRAILER);
        // SAFETY: `at` is 8-aligned within the block (callers pass the trailer's fixed
        // offsets), the base is 8-aligned, and the block lives as long as `self`.
        unsafe { AtomicU64::from_ptr(self.base.as_ptr().add(at).cast()) }
    }

    fn int(&self, at: usize) -> &AtomicI32 {
        debug_assert!(at.is_multiple_of(4) && at + 4 <= self.capacity + TRAILER);
        // SAFETY: as `word`, for 4 bytes at a 4-aligned offset (headers are 8-aligned).
        unsafe { AtomicI32::from_ptr(self.base.as_ptr().add(at).cast()) }
    }

    fn tail_word(&self) -> &AtomicU64 {
        self.word(self.capacity)
    }

    fn head_word(&self) -> &AtomicU64 {
        self.word(self.capacity + LINE)
    }

    fn sleep_word(&self) -> &AtomicI32 {
        self.int(self.capacity + 2 * LINE)
    }

    /// Bytes ever claimed (without the closed bit), and whether the ring is closed.
    pub fn tail(&self) -> (u64, bool) {
        let t = self.tail_word().load(Ordering::Acquire);
        (t & !CLOSED, t & CLOSED != 0)
    }

    /// Closes the ring: producers claim nothing more (they take the direct path, which
    /// refuses and counts after a stop). The final tail: every byte a producer will
    /// ever publish lies before it.
    pub fn close(&self) -> u64 {
        self.tail_word().fetch_or(CLOSED, Ordering::AcqRel) & !CLOSED
    }

    /// Bytes consumed so far.
    pub fn head(&self) -> u64 {
        self.head_word().load(Ordering::Acquire)
    }

    /// Gives the bytes before `head` back to the producers (all zeroed by `consume`).
    pub fn set_head(&self, head: u64) {
        self.head_word().store(head, Ordering::Release);
    }

    /// Says whether the consumer waits to be woken (producers read it after publishing).
    pub fn set_sleeping(&self, sleeping: bool) {
        self.sleep_word()
            .store(i32::from(sleeping), Ordering::SeqCst);
    }

    /// The record at `position` when its producer has published it.
    pub fn next(&self, position: u64) -> Result<Option<Next<'_>>, Corrupt> {
        let at = self.index(position);
        // SeqCst: paired with the sleep word (a consumer that says it sleeps, then finds
        // nothing here, is sure to be woken by the producer that publishes here).
        let total = self.int(at).load(Ordering::SeqCst);
        if total == 0 {
            return Ok(None);
        }
        let payload = self.int(at + 4).load(Ordering::Relaxed);
        let room = self.capacity - at;
        let corrupt = Corrupt { total, payload, at };
        let Ok(size) = usize::try_from(total) else {
            return Err(corrupt);
        };
        if size < HEADER || size > room || !size.is_multiple_of(8) {
            return Err(corrupt);
        }
        if payload == PADDING {
            return Ok(Some(Next::Padding(size)));
        }
        let Ok(length) = usize::try_from(payload) else {
            return Err(corrupt);
        };
        if HEADER + length > size || size - (HEADER + length) >= 8 {
            return Err(corrupt);
        }
        // SAFETY: `at + HEADER + length <= at + size <= capacity` (checked above), inside
        // the block. The producer wrote these bytes before publishing the header, which
        // was read with acquire (SeqCst) ordering above, and writes nothing here again
        // until the head has passed them (after `consume` zeroed them).
        let bytes = unsafe {
            std::slice::from_raw_parts(self.base.as_ptr().add(at + HEADER).cast_const(), length)
        };
        Ok(Some(Next::Event(bytes, size)))
    }

    /// Zeroes the `size` bytes of the record at `position`, read and done with; the
    /// caller then moves the head past them.
    pub fn consume(&self, position: u64, size: usize) {
        let at = self.index(position);
        let size = size.min(self.capacity - at);
        // SAFETY: within the record area (clamped above); the bytes belong to the consumer
        // until the head moves past them, no producer writes them meanwhile, and no
        // reference from `next` outlives this call (the caller's borrow has ended).
        unsafe { std::ptr::write_bytes(self.base.as_ptr().add(at), 0, size) };
    }

    fn index(&self, position: u64) -> usize {
        // The capacity is a power of two below 2^32: the mask keeps the low bits.
        (position & (self.capacity as u64 - 1)) as usize
    }

    /// What Java's `HandOver.offer` does, for the tests: claims room for `payload`,
    /// writes it and publishes it. False when the ring is full or closed.
    #[cfg(test)]
    pub fn produce(&self, payload: &[u8]) -> bool {
        let total = (HEADER + payload.len()).next_multiple_of(8);
        loop {
            let tail = self.tail_word().load(Ordering::Acquire);
            if tail & CLOSED != 0 {
                return false;
            }
            let at = self.index(tail);
            let to_end = self.capacity - at;
            let need = if total <= to_end {
                total
            } else {
                to_end + total
            };
            // Not `tail + need - head`: a stale tail may lie behind a fresh head (Java's
            // signed long goes negative there, and the compare-and-set below fails).
            if tail + need as u64 > self.head() + self.capacity as u64 {
                return false;
            }
            if self
                .tail_word()
                .compare_exchange(
                    tail,
                    tail + need as u64,
                    Ordering::AcqRel,
                    Ordering::Relaxed,
                )
                .is_err()
            {
                continue;
            }
            let mut at = at;
            if need != total {
                self.int(at + 4).store(PADDING, Ordering::Relaxed);
                self.int(at).store(to_end as i32, Ordering::SeqCst);
                at = 0;
            }
            // SAFETY (test producer): the claimed bytes are this producer's until published.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    payload.as_ptr(),
                    self.base.as_ptr().add(at + HEADER),
                    payload.len(),
                );
            }
            self.int(at + 4)
                .store(payload.len() as i32, Ordering::Relaxed);
            self.int(at).store(total as i32, Ordering::SeqCst);
            return true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An 8-aligned block for a ring of `capacity`.
    fn block(capacity: usize) -> Vec<u64> {
        vec![0u64; (capacity + TRAILER) / 8]
    }

    fn ring(memory: &mut [u64]) -> Ring {
        // SAFETY: the vector outlives the ring in every test, and only the ring writes it.
        unsafe { Ring::new(memory.as_mut_ptr().cast(), memory.len() * 8) }.expect("a ring")
    }

    /// Reads every published record from `head`, as the consumer does.
    fn drain(ring: &Ring, head: &mut u64) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while let Some(next) = ring.next(*head).expect("well formed") {
            let size = match next {
                Next::Event(bytes, size) => {
                    out.push(bytes.to_vec());
                    size
                }
                Next::Padding(size) => size,
            };
            ring.consume(*head, size);
            *head += size as u64;
            ring.set_head(*head);
        }
        out
    }

    #[test]
    fn the_capacity_is_a_power_of_two_within_its_bounds() {
        assert_eq!(capacity_for(10_000), 2 << 20);
        assert_eq!(capacity_for(1), MIN_CAPACITY);
        assert_eq!(capacity_for(usize::MAX), MAX_CAPACITY);
        let mut m = block(MIN_CAPACITY);
        // SAFETY: lengths that do not make a ring are refused before any access.
        unsafe {
            assert!(Ring::new(m.as_mut_ptr().cast(), m.len() * 8 - 8).is_none());
            assert!(Ring::new(m.as_mut_ptr().cast::<u8>().add(4), m.len() * 8 - 8).is_none());
            assert!(Ring::new(std::ptr::null_mut(), m.len() * 8).is_none());
        }
    }

    #[test]
    fn records_come_out_in_order_across_many_wraps_with_padding_and_nothing_torn() {
        let mut m = block(MIN_CAPACITY);
        let ring = ring(&mut m);
        let mut head = 0;
        let mut sent = Vec::new();
        let mut got = Vec::new();
        // Sizes that do not divide the ring: records meet its end at every offset.
        for i in 0..20_000usize {
            let payload: Vec<u8> = (0..(i * 37) % 3001).map(|j| (i + j) as u8).collect();
            if !ring.produce(&payload) {
                got.extend(drain(&ring, &mut head));
                assert!(ring.produce(&payload), "an empty ring refused {i}");
            }
            sent.push(payload);
        }
        got.extend(drain(&ring, &mut head));
        assert_eq!(got.len(), sent.len());
        assert!(got == sent, "a record came out changed or out of order");
        assert!(
            head > 10 * MIN_CAPACITY as u64,
            "the ring did not wrap often"
        );
    }

    #[test]
    fn a_full_ring_refuses_until_the_consumer_gives_room_back() {
        let mut m = block(MIN_CAPACITY);
        let ring = ring(&mut m);
        let payload = vec![7u8; 1000];
        let mut n = 0;
        while ring.produce(&payload) {
            n += 1;
        }
        assert_eq!(n, MIN_CAPACITY / 1008);
        // Read but not yet given back: still full.
        let mut head = 0;
        let Ok(Some(Next::Event(_, size))) = ring.next(head) else {
            panic!("no first record");
        };
        ring.consume(head, size);
        assert!(!ring.produce(&payload));
        head += size as u64;
        ring.set_head(head);
        assert!(ring.produce(&payload));
    }

    #[test]
    fn a_closed_ring_claims_nothing_and_says_where_it_ended() {
        let mut m = block(MIN_CAPACITY);
        let ring = ring(&mut m);
        assert!(ring.produce(b"one"));
        assert_eq!(ring.close(), 16);
        assert_eq!(ring.tail(), (16, true));
        assert!(!ring.produce(b"two"));
        let mut head = 0;
        assert_eq!(drain(&ring, &mut head), vec![b"one".to_vec()]);
    }

    #[test]
    fn an_unpublished_record_is_not_read_and_a_corrupt_header_is_refused() {
        let mut m = block(MIN_CAPACITY);
        let ring = ring(&mut m);
        assert_eq!(ring.next(0), Ok(None));
        for (total, payload) in [(7, 0), (16, 9), (32, 3), (-8, 0), (1 << 30, 0), (16, -2)] {
            ring.int(4).store(payload, Ordering::Relaxed);
            ring.int(0).store(total, Ordering::SeqCst);
            assert!(ring.next(0).is_err(), "{total}/{payload} read as a record");
        }
        ring.int(4).store(8, Ordering::Relaxed);
        ring.int(0).store(16, Ordering::SeqCst);
        assert!(matches!(ring.next(0), Ok(Some(Next::Event(b, 16))) if b.len() == 8));
    }

    #[test]
    fn many_producers_and_one_consumer_lose_and_tear_nothing() {
        let mut m = block(MIN_CAPACITY);
        let ring = ring(&mut m);
        let threads = 4u32;
        let each = 20_000u32;
        let received = std::thread::scope(|s| {
            let mut producers = Vec::new();
            for t in 0..threads {
                let ring = &ring;
                producers.push(s.spawn(move || {
                    for i in 0..each {
                        // Its own id and sequence, then a length that varies with them.
                        let mut p = t.to_le_bytes().to_vec();
                        p.extend_from_slice(&i.to_le_bytes());
                        p.resize(8 + (i as usize * 13) % 500, t as u8);
                        while !ring.produce(&p) {
                            std::thread::yield_now();
                        }
                    }
                }));
            }
            let mut head = 0;
            let mut got: Vec<Vec<u8>> = Vec::new();
            while got.len() < (threads * each) as usize {
                // Checked before the drain: once every producer has ended (or panicked),
                // one more drain reads all there is, and the asserts below say what is
                // missing instead of the test waiting for ever.
                let ended = producers.iter().all(|p| p.is_finished());
                let more = drain(&ring, &mut head);
                if more.is_empty() {
                    if ended {
                        break;
                    }
                    std::thread::yield_now();
                }
                got.extend(more);
            }
            got
        });
        let mut next = vec![0u32; threads as usize];
        for p in received {
            let t = u32::from_le_bytes(p[0..4].try_into().expect("4 bytes"));
            let i = u32::from_le_bytes(p[4..8].try_into().expect("4 bytes"));
            assert_eq!(i, next[t as usize], "producer {t}'s records out of order");
            assert_eq!(p.len(), 8 + (i as usize * 13) % 500);
            assert!(p[8..].iter().all(|&b| b == t as u8), "a torn record");
            next[t as usize] += 1;
        }
        assert!(next.iter().all(|&n| n == each), "records lost: {next:?}");
    }
}
