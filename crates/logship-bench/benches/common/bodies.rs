//! Splitting an NDJSON file into request bodies of `batch` lines, as the batcher cuts
//! them, for the compression benches (`gzip_floor.rs`, `compress_levels.rs`, which
//! include this file alone: the rest of `common` pulls in the peers).

/// Each body of at most `batch` lines (the last may hold fewer), with its line count.
pub fn bodies(data: &[u8], batch: usize) -> impl Iterator<Item = (&[u8], u64)> {
    let mut rest = data;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut end = 0;
        let mut lines = 0u64;
        while lines < batch as u64 && end < rest.len() {
            end += rest[end..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(rest.len() - end, |p| p + 1);
            lines += 1;
        }
        let (body, tail) = rest.split_at(end);
        rest = tail;
        Some((body, lines))
    })
}
