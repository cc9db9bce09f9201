//! Cutting the stream of records into batches.
//!
//! Why it exists: one request per event costs a round-trip per event; one giant request
//! risks vendor limits and latency. A batch is flushed by whichever trigger fires first:
//! record count, body bytes (measured on the encoded, uncompressed body, never estimated),
//! or the age of its oldest record (`linger`). Records are encoded as they arrive, so the
//! byte trigger is exact and no event is encoded twice on the normal path.
//!
//! This file is pure logic: no threads, no clocks of its own (the caller passes `now`).
//! The thread that owns a [`Batcher`] and feeds it from the queue is [`thread`].

use std::sync::Arc;
use std::time::{Duration, Instant};

mod fit;
pub(crate) mod thread;

use crate::capture::record::Record;
use crate::vendors::codec::Codec;

/// A batch ready to send: the records (kept for retries, splits and reporting) and the
/// encoded, uncompressed body.
#[derive(Debug)]
pub(crate) struct Batch {
    pub records: Vec<Record>,
    pub body: Vec<u8>,
    /// Bytes counted against the queue's memory bound for these records; released when
    /// settled.
    pub held_bytes: usize,
}

/// Accumulates records into the current batch.
pub(crate) struct Batcher {
    codec: Arc<Codec>,
    max_records: usize,
    max_bytes: usize,
    max_event_bytes: usize,
    max_encoded_event_bytes: usize,
    records: Vec<Record>,
    body: Vec<u8>,
    held_bytes: usize,
    opened_at: Option<Instant>,
    /// Body bytes and records of the last batch cut: the next batch starts with room for
    /// as much, so a steady stream of full batches never grows (and copies) its buffers.
    last_shape: (usize, usize),
}

/// What happened to a record on the way into a batch.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct PushEffects {
    /// The record was cut to `max_event_bytes`.
    pub truncated: bool,
}

impl Batcher {
    pub(crate) fn new(codec: Arc<Codec>, max_event_bytes: usize) -> Batcher {
        let limits = codec.limits();
        Batcher {
            max_records: limits.max_records.max(1),
            max_bytes: codec.max_body_now(),
            max_event_bytes,
            max_encoded_event_bytes: limits.max_event_bytes,
            codec,
            records: Vec::new(),
            body: Vec::new(),
            held_bytes: 0,
            opened_at: None,
            last_shape: (0, 0),
        }
    }

    /// Adds a record, emitting any batch that becomes full.
    pub(crate) fn push(
        &mut self,
        record: Record,
        now: Instant,
        emit: &mut impl FnMut(Batch),
    ) -> PushEffects {
        let held = record.size();
        let mut effects = PushEffects::default();
        let mut record = if record.size() > self.max_event_bytes {
            effects.truncated = true;
            record.truncated(self.max_event_bytes)
        } else {
            record
        };
        if let Some(fitted) = self.codec.fit_line(&record) {
            effects.truncated = true;
            record = fitted;
        }
        if self.records.is_empty() {
            self.start(now);
        }
        let before = self.body.len();
        self.codec
            .push(&mut self.body, &record, self.records.last());
        // The vendor's per-event cap applies to the encoded event, which escaping can make
        // several times larger than the record: cut, measured, until it fits.
        if self.body.len() - before > self.max_encoded_event_bytes {
            effects.truncated = true;
            record = fit::fit(
                &self.codec,
                &mut self.body,
                before,
                self.records.last(),
                record,
                self.max_encoded_event_bytes,
            );
        }
        if !self.records.is_empty() && self.body.len() + self.codec.close_len() > self.max_bytes {
            // It does not fit: ship what we had, start a new batch with this record.
            self.body.truncate(before);
            self.cut(emit);
            self.start(now);
            self.codec.push(&mut self.body, &record, None);
        }
        self.records.push(record);
        self.held_bytes += held;
        if self.records.len() >= self.max_records
            || self.body.len() + self.codec.close_len() >= self.max_bytes
        {
            self.cut(emit);
        }
        effects
    }

    /// When the current batch must be flushed by age, if there is one.
    pub(crate) fn deadline(&self, linger: Duration) -> Option<Instant> {
        self.opened_at.map(|t| t + linger)
    }

    /// Emits the current batch, if it holds anything.
    pub(crate) fn cut(&mut self, emit: &mut impl FnMut(Batch)) {
        if self.records.is_empty() {
            return;
        }
        self.codec.close(&mut self.body, &self.records);
        self.last_shape = (self.body.len(), self.records.len());
        let batch = Batch {
            records: std::mem::take(&mut self.records),
            body: std::mem::take(&mut self.body),
            held_bytes: std::mem::replace(&mut self.held_bytes, 0),
        };
        self.opened_at = None;
        emit(batch);
    }

    /// Events in the current, unsent batch.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.records.len()
    }

    fn start(&mut self, now: Instant) {
        self.opened_at = Some(now);
        self.max_bytes = self.codec.max_body_now();
        // Room for the last batch's size (plus a little), never more than a batch may be.
        let (bytes, records) = self.last_shape;
        let bytes = (bytes + bytes / 8).max(64 * 1024).min(self.max_bytes);
        self.body = Vec::with_capacity(bytes);
        self.records = Vec::with_capacity(records.min(self.max_records));
        self.codec.open(&mut self.body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::record::Level;
    use crate::config::{Config, Vendor};

    fn batcher(vendor: Vendor, max_records: usize, max_bytes: usize) -> Batcher {
        let config = Config {
            vendor,
            endpoint: Some("http://127.0.0.1:1/".into()),
            max_batch_records: max_records,
            max_batch_bytes: max_bytes,
            ..Config::default()
        };
        Batcher::new(Arc::new(Codec::new(&config).unwrap()), 1 << 20)
    }

    fn rec(msg: &str) -> Record {
        let mut r = Record::new(Level::Info, "t");
        r.message(msg);
        r
    }

    #[test]
    fn count_trigger_cuts_exactly_at_max_records() {
        let mut b = batcher(Vendor::Ndjson, 3, 1 << 20);
        let mut out = Vec::new();
        let now = Instant::now();
        for i in 0..7 {
            b.push(rec(&i.to_string()), now, &mut |x| out.push(x));
        }
        assert_eq!(
            out.iter().map(|b| b.records.len()).collect::<Vec<_>>(),
            vec![3, 3]
        );
        assert_eq!(b.len(), 1);
    }

    #[test]
    fn byte_trigger_never_exceeds_max_bytes_and_bodies_are_exact() {
        for vendor in [Vendor::Ndjson, Vendor::JsonArray] {
            let mut b = batcher(vendor, 10_000, 2048);
            let mut out = Vec::new();
            let now = Instant::now();
            for i in 0..200 {
                b.push(rec(&"x".repeat(i % 97)), now, &mut |x| out.push(x));
            }
            b.cut(&mut |x| out.push(x));
            assert!(out.len() > 3);
            let mut total = 0;
            for batch in &out {
                assert!(batch.body.len() <= 2048, "{} > 2048", batch.body.len());
                // The body is exactly the records, encoded.
                let codec = &b.codec;
                assert_eq!(batch.body, codec.encode(&batch.records));
                total += batch.records.len();
            }
            assert_eq!(total, 200);
        }
    }

    #[test]
    fn a_record_larger_than_max_bytes_goes_alone() {
        let mut b = batcher(Vendor::Ndjson, 100, 1024);
        let mut out = Vec::new();
        let now = Instant::now();
        b.push(rec("small"), now, &mut |x| out.push(x));
        b.push(rec(&"y".repeat(5000)), now, &mut |x| out.push(x));
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].records.len(), 1);
        assert_eq!(out[1].records.len(), 1);
        assert_eq!(out[1].records[0].message_str().len(), 5000);
    }

    #[test]
    fn deadline_is_oldest_record_plus_linger() {
        let mut b = batcher(Vendor::Ndjson, 100, 1 << 20);
        let t0 = Instant::now();
        assert_eq!(b.deadline(Duration::from_secs(1)), None);
        b.push(rec("a"), t0, &mut |_| {});
        b.push(rec("b"), t0 + Duration::from_millis(500), &mut |_| {});
        assert_eq!(
            b.deadline(Duration::from_secs(1)),
            Some(t0 + Duration::from_secs(1))
        );
    }

    #[test]
    fn oversized_events_are_truncated() {
        let config = Config {
            endpoint: Some("http://127.0.0.1:1/".into()),
            ..Config::default()
        };
        let mut b = Batcher::new(Arc::new(Codec::new(&config).unwrap()), 4096);
        let mut out = Vec::new();
        let fx = b.push(rec(&"z".repeat(100_000)), Instant::now(), &mut |x| {
            out.push(x)
        });
        assert!(fx.truncated);
        b.cut(&mut |x| out.push(x));
        assert!(out[0].body.len() < 4096 + 512);
    }
}
