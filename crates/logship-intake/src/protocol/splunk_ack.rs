//! Splunk HEC indexer acknowledgement, emulated strictly when asked for (a token with
//! "Enable indexer acknowledgement" on).
//!
//! Facts from `docs/wire-formats.md` 2.1 and 2.4 (Splunk's "About HTTP Event Collector
//! Indexer Acknowledgment"): with ack on, a request without a channel
//! (`X-Splunk-Request-Channel` or `?channel=`) is refused with `400
//! {"text":"Data channel is missing","code":10}`; every accepted request answers
//! `{"text":"Success","code":0,"ackId":N}`, ids counting up from 0 per channel; `POST
//! /services/collector/ack` with `{"acks":[0,1]}` answers `{"acks":{"0":true,"1":false}}`
//! (an id is reported `true` once, then forgotten, as Splunk does; an id it never issued
//! is `false`). Without ack on, the ack endpoint answers `400 {"text":"ACK is
//! disabled","code":14}` and event requests need no channel.
//!
//! To test a client's resend path, acknowledgements can be lost on purpose
//! ([`AckMode::lose_every`]: every Nth issued id is never confirmed), and ack queries can
//! be faulted on their own ([`AckState::fail_queries`]): they never use the faults
//! meant for event requests. Memory is bounded: at most [`MAX_CHANNELS`] channels and
//! [`MAX_PENDING_PER_CHANNEL`] unqueried ids per channel (the oldest are forgotten
//! beyond, as Splunk's own limits do).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde_json::{json, Map, Value};

use crate::faults::{Fault, FaultQueue};

/// The acknowledgement endpoint (and its versioned alias).
pub(crate) const ACK_PATHS: [&str; 2] = ["/services/collector/ack", "/services/collector/ack/1.0"];

/// Most channels remembered; a new one beyond replaces the one with the fewest pending.
pub const MAX_CHANNELS: usize = 10_000;

/// Most unqueried ackIds remembered per channel (oldest forgotten beyond).
pub const MAX_PENDING_PER_CHANNEL: usize = 100_000;

/// How the Splunk endpoints treat indexer acknowledgement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckMode {
    /// Emulate a token with indexer acknowledgement on.
    pub enabled: bool,
    /// Never confirm every Nth ackId a channel is issued (with N = 3: ids 2, 5, 8, ...),
    /// so a client's resend path is exercised; 0 loses none.
    pub lose_every: u64,
}

/// Acknowledgement counters, in [`crate::IntakeStats`].
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct AckStats {
    /// Event requests answered with an `ackId`.
    pub issued: u64,
    /// `POST /services/collector/ack` queries answered (faulted ones included).
    pub queries: u64,
    /// ackIds asked about, over all queries.
    pub ids_queried: u64,
    /// ackIds answered `true`.
    pub confirmed: u64,
    /// ackIds lost on purpose ([`AckMode::lose_every`]): never confirmed.
    pub lost: u64,
    /// Requests refused because ack is on and they named no channel (code 10).
    pub missing_channel: u64,
}

#[derive(Default)]
struct Channel {
    next: u64,
    /// Issued, not yet reported `true`: whether the id was lost on purpose.
    pending: BTreeMap<u64, bool>,
}

#[derive(Default)]
struct Inner {
    mode: AckMode,
    channels: HashMap<String, Channel>,
    stats: AckStats,
    query_faults: FaultQueue,
}

/// Acknowledgement state shared by every request (one per intake).
#[derive(Default)]
pub(crate) struct AckState {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for AckState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AckState").finish_non_exhaustive()
    }
}

impl AckState {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sets the mode (ids already issued are kept).
    pub fn set_mode(&self, mode: AckMode) {
        self.lock().mode = mode;
    }

    /// A fresh state with the same mode and nothing issued (for a faulted request).
    pub fn scratch(&self) -> AckState {
        let scratch = AckState::default();
        scratch.set_mode(self.mode());
        scratch
    }

    /// The current mode.
    pub fn mode(&self) -> AckMode {
        self.lock().mode
    }

    /// The counters.
    pub fn stats(&self) -> AckStats {
        self.lock().stats.clone()
    }

    /// Clears counters and issued ids (the mode and pending faults are kept).
    pub fn reset(&self) {
        let mut inner = self.lock();
        inner.stats = AckStats::default();
        inner.channels.clear();
    }

    /// Serves `fault` to the next `n` ack queries (event requests are not affected).
    pub fn fail_queries(&self, n: usize, fault: Fault) {
        self.lock().query_faults.push(n, fault);
    }

    /// The fault for an ack query arriving now, if one is pending (the query is counted).
    pub fn take_query_fault(&self) -> Option<Fault> {
        let mut inner = self.lock();
        let fault = inner.query_faults.take();
        if fault.is_some() {
            inner.stats.queries += 1;
        }
        fault
    }

    /// Counts a request refused for want of a channel.
    pub fn count_missing_channel(&self) {
        self.lock().stats.missing_channel += 1;
    }

    /// Issues the next ackId of `channel` (for an accepted event request).
    pub fn issue(&self, channel: &str) -> u64 {
        let mut inner = self.lock();
        let lose_every = inner.mode.lose_every;
        if !inner.channels.contains_key(channel) && inner.channels.len() >= MAX_CHANNELS {
            let fewest = inner
                .channels
                .iter()
                .min_by_key(|(_, c)| c.pending.len())
                .map(|(k, _)| k.clone());
            if let Some(k) = fewest {
                inner.channels.remove(&k);
            }
        }
        let ch = inner.channels.entry(channel.to_owned()).or_default();
        let id = ch.next;
        ch.next += 1;
        let lost = lose_every > 0 && (id + 1).is_multiple_of(lose_every);
        ch.pending.insert(id, lost);
        while ch.pending.len() > MAX_PENDING_PER_CHANNEL {
            ch.pending.pop_first();
        }
        inner.stats.issued += 1;
        if lost {
            inner.stats.lost += 1;
        }
        id
    }

    /// Answers a query for `ids` on `channel`: `true` once for each issued, kept id (then
    /// forgotten), `false` otherwise.
    pub fn query(&self, channel: &str, ids: &[u64]) -> Value {
        let mut inner = self.lock();
        let mut answer = Map::new();
        let mut confirmed = 0;
        for &id in ids {
            let ok = match inner.channels.get_mut(channel) {
                Some(ch) => match ch.pending.get(&id) {
                    Some(false) => {
                        ch.pending.remove(&id);
                        true
                    }
                    _ => false,
                },
                None => false,
            };
            confirmed += u64::from(ok);
            answer.insert(id.to_string(), Value::Bool(ok));
        }
        inner.stats.queries += 1;
        inner.stats.ids_queried += ids.len() as u64;
        inner.stats.confirmed += confirmed;
        json!({ "acks": answer })
    }
}

/// The ackIds of a query body `{"acks":[0,1,2]}`; `None` when it is not that shape.
pub(crate) fn parse_query(body: &[u8]) -> Option<Vec<u64>> {
    let v: Value = serde_json::from_slice(body).ok()?;
    v.get("acks")?
        .as_array()?
        .iter()
        .map(Value::as_u64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_count_up_per_channel_and_are_confirmed_once() {
        let s = AckState::default();
        s.set_mode(AckMode {
            enabled: true,
            lose_every: 0,
        });
        assert_eq!(s.issue("a"), 0);
        assert_eq!(s.issue("a"), 1);
        assert_eq!(s.issue("b"), 0);
        assert_eq!(
            s.query("a", &[0, 1, 7]),
            json!({"acks": {"0": true, "1": true, "7": false}})
        );
        assert_eq!(s.query("a", &[0]), json!({"acks": {"0": false}}));
        assert_eq!(s.query("c", &[0]), json!({"acks": {"0": false}}));
        assert_eq!(s.stats().confirmed, 2);
    }

    #[test]
    fn every_nth_id_is_lost() {
        let s = AckState::default();
        s.set_mode(AckMode {
            enabled: true,
            lose_every: 3,
        });
        let ids: Vec<u64> = (0..6).map(|_| s.issue("a")).collect();
        let answer = s.query("a", &ids);
        let lost: Vec<&str> = answer["acks"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, v)| **v == Value::Bool(false))
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(lost, ["2", "5"]);
        assert_eq!(s.stats().lost, 2);
    }

    #[test]
    fn queries_are_read_strictly() {
        assert_eq!(parse_query(br#"{"acks":[1,2]}"#), Some(vec![1, 2]));
        for bad in [
            &b"{}"[..],
            br#"{"acks":"1"}"#,
            br#"{"acks":[-1]}"#,
            br#"{"acks":["1"]}"#,
            b"nope",
        ] {
            assert_eq!(parse_query(bad), None);
        }
    }
}
