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
mod exchange;
mod loki;
mod otlp;
mod otlp_cost;
#[cfg(test)]
mod real_clients;
mod splunk;
#[cfg(test)]
mod tests;
mod wire_count;

use std::borrow::Cow;

pub(crate) use exchange::{too_many_message, Answer, Decoded, Request, Vendor};

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
