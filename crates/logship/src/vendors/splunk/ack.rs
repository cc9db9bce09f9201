//! Splunk HEC indexer acknowledgement (`splunk_ack`): where to ask, what to ask, and how
//! to read the answer (docs/wire-formats.md 2.1).
//!
//! Why it exists: a `200` from a HEC token with indexer acknowledgement only means the
//! request looked valid; the data is durable once `/services/collector/ack` answers
//! `true` for the request's `ackId`. The waiting, asking and resending is generic
//! (`deliver::acks`); this file is what only Splunk knows: the ack URL, the `ackId` in a
//! success answer, the query body, the answer's shape and the limits of one query.
//!
//! Must never: read an answer not of the documented shape as a confirmation.

use crate::support::json;

/// What to tell the user, once, when ack is on but a success answer has no `ackId`.
pub(super) const MISSING_ACK_ID: &str = "warning: splunk_ack is on but Splunk's success answer carries no ackId (the HEC token does not have indexer acknowledgement enabled); such a 200 counts as delivered. Enable it on the token, or set splunk_ack = false";

/// Path of the acknowledgement endpoint (docs/wire-formats.md 2.1).
const PATH: &str = "/services/collector/ack";

/// Most ackIds one acknowledgement query asks about; more are asked in several.
pub(super) const MAX_IDS: usize = 1000;

/// Most bytes of an acknowledgement answer read: `MAX_IDS` entries of
/// `"1234567890":false,` with room to spare.
pub(super) const MAX_ANSWER: u64 = 64 * 1024;

/// The acknowledgement URL for the event URL `url`: its path up to `/services/collector`,
/// then `/ack`, with the same query (which may carry `channel=`); `None` when the path has
/// no `/services/collector` (then the endpoint's owner must name one that does).
pub(super) fn url(url: &str) -> Option<String> {
    let uri = url.parse::<ureq::http::Uri>().ok()?;
    let (scheme, authority) = (uri.scheme_str()?, uri.authority()?);
    let path = uri.path();
    let at = path.find("/services/collector")?;
    let base = &path[..at];
    Some(match uri.query() {
        Some(q) => format!("{scheme}://{authority}{base}{PATH}?{q}"),
        None => format!("{scheme}://{authority}{base}{PATH}"),
    })
}

/// The `ackId` of a success answer (`{"text":"Success","code":0,"ackId":7}`); `None` when
/// it has none (a token without indexer acknowledgement) or is not JSON.
pub(super) fn ack_id(body: &str) -> Option<u64> {
    let v: serde_json::Value = serde_json::from_str(body.trim()).ok()?;
    v.get("ackId")?.as_u64()
}

/// The body of an acknowledgement query: `{"acks":[0,1,2]}`.
pub(super) fn query(ids: &[u64]) -> Vec<u8> {
    let mut body = b"{\"acks\":[".to_vec();
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        json::unsigned(&mut body, *id);
    }
    body.extend_from_slice(b"]}");
    body
}

/// The ackIds an acknowledgement answer (`{"acks":{"0":true,"1":false}}`) confirms;
/// `None` when the answer is not of that shape (a failed query: nothing is confirmed).
/// An id the answer does not name, or names with anything but `true`, is not confirmed.
pub(super) fn acked(body: &[u8]) -> Option<Vec<u64>> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    let acks = v.get("acks")?.as_object()?;
    let mut confirmed = Vec::new();
    for (id, state) in acks {
        let id: u64 = id.parse().ok()?;
        if state.as_bool()? {
            confirmed.push(id);
        }
    }
    Some(confirmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ack_url_sits_beside_the_event_path() {
        for (event, ack) in [
            (
                "https://h:8088/services/collector/event",
                "https://h:8088/services/collector/ack",
            ),
            (
                "http://h:1/services/collector",
                "http://h:1/services/collector/ack",
            ),
            (
                "http://h:1/splunk/services/collector/event/1.0?channel=x",
                "http://h:1/splunk/services/collector/ack?channel=x",
            ),
        ] {
            assert_eq!(url(event).as_deref(), Some(ack), "{event}");
        }
        assert_eq!(url("http://h:1/hec"), None);
    }

    #[test]
    fn ack_answers_are_read_strictly() {
        assert_eq!(ack_id(r#"{"text":"Success","code":0,"ackId":7}"#), Some(7));
        assert_eq!(ack_id(r#"{"text":"Success","code":0}"#), None);
        assert_eq!(ack_id("<html>"), None);
        assert_eq!(query(&[0, 5, 12]), br#"{"acks":[0,5,12]}"#.to_vec());
        let mut got = acked(br#"{"acks":{"0":true,"5":false,"12":true}}"#).unwrap();
        got.sort();
        assert_eq!(got, vec![0, 12]);
        for garbage in [
            &b"not json"[..],
            br#"{"acks":[0,1]}"#,
            br#"{"acks":{"x":true}}"#,
            br#"{"acks":{"1":"yes"}}"#,
            br#"{"text":"Invalid token","code":4}"#,
            b"",
        ] {
            assert_eq!(acked(garbage), None, "{}", String::from_utf8_lossy(garbage));
        }
    }
}
