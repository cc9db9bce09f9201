//! The hashes of the caller-side policy: mixing a call site's identity, and hashing
//! bytes the same way in every process.
//!
//! Why it exists: the burst table spreads nearby addresses far apart, and trace-consistent
//! sampling must decide the same for one trace id in every thread and process. Must
//! never: depend on a per-process seed.

/// A strong 64-bit mix (the splitmix64 finaliser): nearby addresses land far apart.
#[inline]
pub(crate) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A fast hash of `bytes` (eight at a time), seeded with `h`; deterministic across
/// processes, which trace-consistent sampling relies on.
#[inline]
pub(crate) fn hash_bytes(mut h: u64, bytes: &[u8]) -> u64 {
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w) ^ rest.len() as u64)
            .wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h
}
