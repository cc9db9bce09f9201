//! What a vendor push API exchanges: which API a request is for ([`Vendor`]), the
//! request as the server read it ([`Request`]), and the answer in the vendor's own shape
//! ([`Answer`], [`Decoded`]).
//!
//! Why it exists: the server, the dispatch (`mod.rs`) and every vendor's decoder name
//! these; kept apart from the dispatch so that no vendor file imports the file that
//! imports it. Must never: hold a vendor's own wire facts (they live in its file).

use logship::Record;

/// A vendor push API served on its own paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vendor {
    /// Datadog Logs `POST /api/v2/logs` (and the legacy `/v1/input`).
    Datadog,
    /// Splunk HEC JSON envelopes: `/services/collector`, `/services/collector/event`.
    SplunkEvent,
    /// Splunk HEC raw lines: `/services/collector/raw`.
    SplunkRaw,
    /// Splunk HEC health check: `/services/collector/health`.
    SplunkHealth,
    /// OpenTelemetry OTLP/HTTP logs `POST /v1/logs`, protobuf or JSON.
    Otlp,
    /// Grafana Loki `POST /loki/api/v1/push`, JSON or snappy protobuf.
    Loki,
}

/// What the server read (body already de-chunked and decompressed, within the size limit).
pub(crate) struct Request<'a> {
    /// `POST`, `GET`, ... as sent.
    pub method: &'a str,
    /// The path, without the query.
    pub path: &'a str,
    /// The query string after `?`, undecoded.
    pub query: Option<&'a str>,
    /// Header names lowercased, values as sent.
    pub headers: &'a [(String, String)],
    /// The body.
    pub body: &'a [u8],
    /// Most events the request may hold: a decoder may stop once it has one more (the
    /// server answers 413 then).
    pub max_events: usize,
    /// Largest body, decoded (Loki's snappy block counts against it too).
    pub max_body: usize,
}

impl<'a> Request<'a> {
    /// The first value of header `name` (lowercase).
    pub(crate) fn header(&self, name: &str) -> Option<&'a str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The media type of `Content-Type`, lowercased, without its parameters.
    pub(crate) fn media_type(&self) -> Option<String> {
        let value = self.header("content-type")?;
        let media = value.split(';').next().unwrap_or("").trim();
        (!media.is_empty()).then(|| media.to_ascii_lowercase())
    }

    /// The raw (undecoded) value of query parameter `name`, the first one wins.
    pub(crate) fn query_raw(&self, name: &str) -> Option<&'a str> {
        self.query?
            .split('&')
            .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v)
    }

    /// Query parameter `name`, percent-decoded (`+` as a space).
    pub(crate) fn query_param(&self, name: &str) -> Option<String> {
        self.query_raw(name).map(percent_decode)
    }
}

/// A response in the vendor's own shape.
pub(crate) struct Answer {
    /// HTTP status.
    pub status: u16,
    /// Headers to send (`Content-Type`, `Retry-After`, ...); the server adds framing.
    pub headers: Vec<(String, String)>,
    /// The body (empty for 204).
    pub body: Vec<u8>,
}

impl Answer {
    /// A JSON answer.
    pub(crate) fn json(status: u16, body: &serde_json::Value) -> Answer {
        Answer::with_type(status, "application/json", body.to_string().into_bytes())
    }

    /// A plain-text answer (Loki's errors).
    pub(crate) fn text(status: u16, body: &str) -> Answer {
        Answer::with_type(
            status,
            "text/plain; charset=utf-8",
            body.as_bytes().to_vec(),
        )
    }

    /// An answer of `content_type`.
    pub(crate) fn with_type(status: u16, content_type: &str, body: Vec<u8>) -> Answer {
        Answer {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body,
        }
    }

    /// An answer without a body (Loki's `204`).
    pub(crate) fn empty(status: u16) -> Answer {
        Answer {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// Adds `Retry-After: secs`.
    pub(crate) fn retry_after(mut self, secs: u64) -> Answer {
        self.headers.push(("Retry-After".into(), secs.to_string()));
        self
    }

    /// Adds `Allow: methods` (a 405).
    pub(crate) fn allow(mut self, methods: &str) -> Answer {
        self.headers.push(("Allow".into(), methods.into()));
        self
    }
}

/// What a request decoded to.
pub(crate) enum Decoded {
    /// The events, and the answer to send once they are queued.
    Events(Vec<Record>, Answer),
    /// Answer at once (health check, malformed body, wrong method): no events.
    Answer(Answer),
}

/// What a request of more than `max_events` events is told (the fix is smaller batches,
/// or a larger queue).
pub(crate) fn too_many_message(max_events: usize) -> String {
    format!(
        "the request holds more than {max_events} events, the most logship's queue holds \
         (queue_capacity): send smaller batches"
    )
}

/// Percent-decoding of a query value (`+` is a space); an invalid escape stays as it is,
/// invalid UTF-8 is replaced.
fn percent_decode(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let pair = bytes
                    .get(i + 1)
                    .copied()
                    .and_then(hex)
                    .zip(bytes.get(i + 2).copied().and_then(hex));
                if let Some((hi, lo)) = pair {
                    out.push(hi << 4 | lo);
                    i += 2;
                } else {
                    out.push(b'%');
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
