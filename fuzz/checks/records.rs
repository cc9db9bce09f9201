//! Records built from fuzz bytes, for the targets that need well-formed records to write
//! (the spill targets): a tiny byte-driven builder, so mutations of the input explore
//! levels, timestamps, every value type, spans, odd text and empty strings.
//!
//! Must never: panic or loop on any input (every step consumes at least one byte).

use logship::{Level, Record};

/// Reads bytes front to back.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    fn u64(&mut self) -> u64 {
        let mut out = [0; 8];
        for b in &mut out {
            *b = self.byte().unwrap_or(0);
        }
        u64::from_le_bytes(out)
    }

    /// A length byte, then that many bytes as text (invalid UTF-8 replaced).
    fn text(&mut self, alnum: bool) -> String {
        let n = usize::from(self.byte().unwrap_or(0)).min(self.0.len());
        let (s, rest) = self.0.split_at(n);
        self.0 = rest;
        if alnum {
            const ABC: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
            s.iter()
                .map(|&b| ABC[usize::from(b) % ABC.len()] as char)
                .collect()
        } else {
            String::from_utf8_lossy(s).into_owned()
        }
    }
}

fn build(data: &[u8], max: usize, alnum: bool) -> Vec<Record> {
    let levels = [
        Level::Trace,
        Level::Debug,
        Level::Info,
        Level::Warn,
        Level::Error,
    ];
    let mut input = Bytes(data);
    let mut out: Vec<Record> = Vec::new();
    while let Some(op) = input.byte() {
        if op % 4 == 0 || out.is_empty() {
            if out.len() == max {
                break;
            }
            let level = levels[usize::from(op / 4) % levels.len()];
            let target = input.text(alnum);
            let mut r = Record::new(level, &target);
            r.set_timestamp_nanos(input.u64());
            out.push(r);
            continue;
        }
        let r = out.last_mut().expect("one record at least");
        match op % 4 {
            1 => {
                r.message(&input.text(alnum));
            }
            2 => {
                let key = input.text(alnum);
                match (op / 4) % 5 {
                    0 => r.field(&key, input.text(alnum).as_str()),
                    1 => r.field(&key, input.u64() as i64),
                    2 => r.field(&key, input.u64()),
                    3 => r.field(&key, f64::from_bits(input.u64())),
                    _ => r.field(&key, op & 0x80 != 0),
                };
            }
            _ => {
                r.span(&input.text(alnum));
            }
        }
    }
    out
}

/// At most `max` records described by `data` (any text).
pub fn from_bytes(data: &[u8], max: usize) -> Vec<Record> {
    build(data, max, false)
}

/// Like [`from_bytes`], with every text made of ASCII letters and digits.
pub fn from_bytes_alnum(data: &[u8], max: usize) -> Vec<Record> {
    build(data, max, true)
}
