//! Counting the events of a protobuf body before decoding it.
//!
//! Why it exists: a decoded protobuf message takes many times its encoding. An empty OTLP
//! `LogRecord` is 2 bytes on the wire and a few hundred once decoded: 10 MiB of them took
//! 2.6 GiB. Walking the wire format to count the repeated messages costs no allocation,
//! so a body of more events than the queue holds is refused before it is decoded.
//!
//! Must never: allocate per field, recurse (the path is at most a few levels, walked with
//! a fixed stack), or panic on any bytes (malformed bytes are left to the real decoder,
//! which refuses them).

/// How many messages sit at `path` (field numbers, outermost first) in `buf`: for OTLP
/// logs `[1, 2, 2]` (resource_logs, scope_logs, log_records). `None` when the bytes do
/// not walk as protobuf; `Some(n)` may stop counting once `n` exceeds `stop_after`.
pub(super) fn count(buf: &[u8], path: &[u32], stop_after: usize) -> Option<usize> {
    const MAX_DEPTH: usize = 4;
    if path.is_empty() || path.len() > MAX_DEPTH {
        return None;
    }
    let mut stack: [&[u8]; MAX_DEPTH] = [&[]; MAX_DEPTH];
    stack[0] = buf;
    let mut depth = 0usize;
    let mut found = 0usize;
    loop {
        let rest = stack.get(depth).copied()?;
        if rest.is_empty() {
            if depth == 0 {
                return Some(found);
            }
            depth -= 1;
            continue;
        }
        let (key, after) = varint(rest)?;
        let field = u32::try_from(key >> 3).ok()?;
        let (payload, after) = match key & 7 {
            0 => (None, varint(after)?.1),
            1 => (None, after.get(8..)?),
            5 => (None, after.get(4..)?),
            2 => {
                let (len, after) = varint(after)?;
                let len = usize::try_from(len).ok()?;
                (Some(after.get(..len)?), after.get(len..)?)
            }
            _ => return None,
        };
        stack[depth] = after;
        if let (Some(inner), true) = (payload, field == path[depth]) {
            if depth + 1 == path.len() {
                found += 1;
                if found > stop_after {
                    return Some(found);
                }
            } else {
                depth += 1;
                stack[depth] = inner;
            }
        }
    }
}

/// A base-128 varint at the start of `b`, and what follows it (`None`: cut short or
/// longer than ten bytes). One byte (tags and short lengths, most of them) is read in
/// place; longer ones by prost's decoder.
pub(super) fn varint(b: &[u8]) -> Option<(u64, &[u8])> {
    match b.split_first() {
        Some((&byte, rest)) if byte < 0x80 => Some((u64::from(byte), rest)),
        _ => {
            let mut rest = b;
            let value = prost::encoding::decode_varint(&mut rest).ok()?;
            Some((value, rest))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::count;
    use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
    use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
    use prost::Message;

    fn request(scopes: &[usize]) -> Vec<u8> {
        let scope_logs = scopes
            .iter()
            .map(|&n| ScopeLogs {
                log_records: (0..n)
                    .map(|i| LogRecord {
                        time_unix_nano: i as u64,
                        severity_text: "INFO".into(),
                        ..LogRecord::default()
                    })
                    .collect(),
                ..ScopeLogs::default()
            })
            .collect();
        ExportLogsServiceRequest {
            resource_logs: vec![
                ResourceLogs {
                    scope_logs,
                    ..ResourceLogs::default()
                },
                ResourceLogs::default(),
            ],
        }
        .encode_to_vec()
    }

    #[test]
    fn counts_the_log_records_of_a_real_request_and_stops_past_the_limit() {
        let body = request(&[3, 0, 5]);
        assert_eq!(count(&body, &[1, 2, 2], usize::MAX), Some(8));
        assert_eq!(count(&body, &[1, 2, 2], 4), Some(5), "stops at one past 4");
        assert_eq!(count(&body, &[1, 2], usize::MAX), Some(3), "scopes");
        assert_eq!(count(&[], &[1, 2, 2], 10), Some(0));
    }

    #[test]
    fn garbage_and_truncated_bytes_walk_to_none_never_a_panic() {
        let body = request(&[4]);
        for cut in 0..body.len() {
            let _ = count(&body[..cut], &[1, 2, 2], usize::MAX);
        }
        assert_eq!(
            count(&[0x0a, 0xff], &[1, 2, 2], 10),
            None,
            "length past the end"
        );
        assert_eq!(count(&[0x0f], &[1], 10), None, "wire type 7");
        let endless = [
            0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        ];
        assert_eq!(count(&endless, &[1], 10), None, "endless varint");
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..2000 {
            let bytes: Vec<u8> = (0..64)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state as u8
                })
                .collect();
            let _ = count(&bytes, &[1, 2, 2], usize::MAX);
        }
    }
}
