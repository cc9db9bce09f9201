//! TEMPORARY STUB (owner: the vendor engineer's branch `l19-vendor` replaces this file
//! at merge): the interface of the vendor push APIs as `/tmp/l19-design.md` fixes it, so
//! that the HTTP server compiles against it. [`route`] answers `None` for every path, so
//! this build serves the generic bodies only.
//!
//! Must never: be shipped as the vendor APIs (it routes nothing).
// A stub: parts of the interface are used only by the real file.
#![allow(dead_code)]

/// A vendor push API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vendor {
    /// Datadog `/api/v2/logs`.
    Datadog,
    /// Splunk HEC `/services/collector/event`.
    SplunkEvent,
    /// Splunk HEC `/services/collector/raw`.
    SplunkRaw,
    /// Splunk HEC `/services/collector/health`.
    SplunkHealth,
    /// OTLP/HTTP `/v1/logs`.
    Otlp,
    /// Loki `/loki/api/v1/push`.
    Loki,
}

/// What the server read (body already de-chunked and decompressed, within the size limit).
pub(crate) struct Request<'a> {
    /// The method.
    pub method: &'a str,
    /// The path, without the query.
    pub path: &'a str,
    /// The query, without `?`.
    pub query: Option<&'a str>,
    /// Header fields, names lowercased.
    pub headers: &'a [(String, String)],
    /// The body.
    pub body: &'a [u8],
}

/// A response in the vendor's own shape.
pub(crate) struct Answer {
    /// Status code.
    pub status: u16,
    /// Header fields.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Vec<u8>,
}

/// What a request held.
pub(crate) enum Decoded {
    /// The events, and the answer to send once they are queued.
    Events(Vec<logship::Record>, Answer),
    /// Answer at once (health check, malformed body, wrong method): no events.
    Answer(Answer),
}

fn stub_answer(status: u16) -> Answer {
    Answer {
        status,
        headers: Vec::new(),
        body: Vec::new(),
    }
}

/// The vendor API at `path`, if any (stub: none).
pub(crate) fn route(path: &str) -> Option<Vendor> {
    let _ = path;
    None
}

/// Decodes a request to `vendor` (stub: 404).
pub(crate) fn decode(vendor: Vendor, req: &Request<'_>) -> Decoded {
    let _ = (vendor, req.body);
    Decoded::Answer(stub_answer(404))
}

/// The vendor's answer when the queue is full (503/429 with `Retry-After`).
pub(crate) fn busy(vendor: Vendor, retry_after_secs: u64) -> Answer {
    let _ = vendor;
    let mut a = stub_answer(503);
    a.headers
        .push(("Retry-After".into(), retry_after_secs.to_string()));
    a
}

/// The vendor's answer to a missing or wrong token.
pub(crate) fn unauthorized(vendor: Vendor) -> Answer {
    let _ = vendor;
    stub_answer(401)
}

/// The credential where this vendor's clients send it (stub: none).
pub(crate) fn credential<'a>(vendor: Vendor, req: &Request<'a>) -> Option<&'a str> {
    let _ = (vendor, req.path);
    None
}

/// The vendor's answer to a body over the limit (413).
pub(crate) fn too_large(vendor: Vendor, limit: usize) -> Answer {
    let _ = (vendor, limit);
    stub_answer(413)
}
