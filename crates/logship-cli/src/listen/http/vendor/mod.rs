//! The vendor push APIs of `ship --listen`, as pure decoders: existing SDKs, agents and
//! appenders point at logship instead of the vendor, and each one must see the answers
//! its real counterpart gives (status codes and body shapes).
//!
//! Why it exists apart from the server: these are pure functions of a request already
//! read (body de-chunked and decompressed within the size limit), so they are tested
//! on real client payloads without sockets. The server routes with [`route`], asks
//! [`credential`] for the token, hands the request to [`decode`], pushes the events and
//! answers with the returned [`Answer`] ([`busy`] when the queue refused one).
//!
//! Lenient receivers, not strict checkers: they accept what the vendor's real clients send
//! and refuse only what the vendor itself refuses (the strict emulation is
//! `logship-intake`, whose answer bodies they share). Must never: panic on any input,
//! recurse on input (serde_json's and prost's own nesting limits bound depth), or echo a
//! credential in an answer.

mod datadog;
mod loki;
mod otlp;
#[cfg(test)]
mod real_clients;
mod splunk;
#[cfg(test)]
mod tests;
mod wire_count;

use std::borrow::Cow;

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

/// The vendor API served on `path` (query excluded), if any.
pub(crate) fn route(path: &str) -> Option<Vendor> {
    if datadog::serves(path) {
        return Some(Vendor::Datadog);
    }
    if let Some(vendor) = splunk::route(path) {
        return Some(vendor);
    }
    if path == otlp::PATH {
        return Some(Vendor::Otlp);
    }
    if loki::serves(path) {
        return Some(Vendor::Loki);
    }
    None
}

/// Decodes a request of `vendor` into events and the answer the real vendor gives.
pub(crate) fn decode(vendor: Vendor, req: &Request<'_>) -> Decoded {
    match vendor {
        Vendor::Datadog => datadog::decode(req),
        Vendor::SplunkEvent => splunk::decode_event(req),
        Vendor::SplunkRaw => splunk::decode_raw(req),
        Vendor::SplunkHealth => splunk::health(req),
        Vendor::Otlp => otlp::decode(req),
        Vendor::Loki => loki::decode(req),
    }
}

/// The vendor's answer when the queue is full (503/429 with `Retry-After`).
pub(crate) fn busy(vendor: Vendor, retry_after_secs: u64) -> Answer {
    match vendor {
        Vendor::Datadog => datadog::error(
            503,
            "logship's queue is full: retry after the Retry-After delay",
        ),
        Vendor::SplunkEvent | Vendor::SplunkRaw | Vendor::SplunkHealth => splunk::busy(),
        Vendor::Otlp => otlp::unavailable(),
        Vendor::Loki => Answer::text(
            429,
            "Ingestion rate limit exceeded: logship's queue is full, retry later (rate_limited)\n",
        ),
    }
    .retry_after(retry_after_secs)
}

/// The vendor's answer to a missing or wrong token (the server decides; [`credential`]
/// reads the credential where this vendor's clients send it). This is the answer to a
/// wrong one (Datadog 403, HEC 403 code 4); [`missing_credential`] is the one to a missing
/// one where the vendor tells them apart.
pub(crate) fn unauthorized(vendor: Vendor) -> Answer {
    match vendor {
        Vendor::Datadog => datadog::error(403, "Forbidden: the API key is not valid"),
        Vendor::SplunkEvent | Vendor::SplunkRaw | Vendor::SplunkHealth => {
            splunk::answer(403, splunk::code::INVALID_TOKEN, None)
        }
        Vendor::Otlp => otlp::status_answer(401, otlp::UNAUTHENTICATED, "invalid credentials"),
        Vendor::Loki => Answer::text(401, "unauthorized: invalid credentials\n"),
    }
}

/// The vendor's answer to a request without any credential (Datadog 401, HEC 401 code 2);
/// the same as [`unauthorized`] for the vendors that do not tell them apart.
pub(crate) fn missing_credential(vendor: Vendor) -> Answer {
    match vendor {
        Vendor::Datadog => datadog::error(401, "Unauthorized: send the API key in DD-API-KEY"),
        Vendor::SplunkEvent | Vendor::SplunkRaw | Vendor::SplunkHealth => {
            splunk::answer(401, splunk::code::TOKEN_REQUIRED, None)
        }
        Vendor::Otlp | Vendor::Loki => unauthorized(vendor),
    }
}

/// The credential of `req` where this vendor's clients send it: `DD-API-KEY` (or the
/// `dd-api-key` query parameter) for Datadog, `Authorization: Splunk T` (or `Bearer T`,
/// `Basic` with T as the password, or `?token=T`) for HEC, `Authorization: Bearer T` for OTLP and Loki (a collector's or
/// gateway's bearer token). `None` when absent or empty.
pub(crate) fn credential<'a>(vendor: Vendor, req: &Request<'a>) -> Option<Cow<'a, str>> {
    let found = match vendor {
        Vendor::Datadog => datadog::credential(req).map(Cow::Borrowed),
        Vendor::SplunkEvent | Vendor::SplunkRaw | Vendor::SplunkHealth => splunk::credential(req),
        Vendor::Otlp | Vendor::Loki => req
            .header("authorization")
            .and_then(|v| logship_http::answers::strip_scheme(v, "Bearer"))
            .map(Cow::Borrowed),
    };
    found.filter(|t| !t.is_empty())
}

/// The vendor's answer to a body over the limit (413).
pub(crate) fn too_large(vendor: Vendor, limit: usize) -> Answer {
    let message =
        format!("the request body is over logship's limit of {limit} bytes: send smaller batches");
    too_many(vendor, &message)
}

/// The vendor's 413 in its own error shape, with `message`: for a request of more events
/// than logship's queue holds ([`too_many_message`]), and (through [`too_large`]) one over
/// the body limit.
pub(crate) fn too_many(vendor: Vendor, message: &str) -> Answer {
    match vendor {
        Vendor::Datadog => datadog::error(413, message),
        Vendor::SplunkEvent | Vendor::SplunkRaw | Vendor::SplunkHealth => {
            splunk::http_error(413, message)
        }
        Vendor::Otlp => otlp::status_answer(413, otlp::RESOURCE_EXHAUSTED, message),
        Vendor::Loki => Answer::text(413, &format!("{message}\n")),
    }
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
