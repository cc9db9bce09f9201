//! One HTTP POST, and nothing else.
//!
//! Why it exists: the rest of the pipeline should not know ureq. This wraps a shared
//! `ureq::Agent` (one keep-alive pool for all senders) configured the way a shipper needs:
//! statuses come back as responses (not errors) so they can be classified, redirects are
//! never followed (a 302 would turn the POST into a GET and lose the body), bodies are
//! sent from memory so `Content-Length` is always set, and every attempt is bounded by
//! connect and request timeouts. Error texts never include the URL's query or user-info,
//! which may carry keys.

use std::time::{Duration, SystemTime};

use crate::config::{redact_url, Config};
use crate::secret::Secret;
use crate::send::backoff::parse_retry_after;

/// The `User-Agent` logship sends.
pub(crate) const USER_AGENT: &str = concat!("logship/", env!("CARGO_PKG_VERSION"));

/// An intake's answer.
#[derive(Debug)]
pub(crate) struct Response {
    pub status: u16,
    pub retry_after: Option<Duration>,
    /// The start of the body (at most the `max_response` bytes asked for).
    pub body: String,
    /// The same bytes as received, for intakes that answer in a binary format.
    pub raw: Vec<u8>,
}

/// A shared HTTP client.
#[derive(Clone)]
pub(crate) struct Client {
    agent: ureq::Agent,
}

impl Client {
    pub(crate) fn new(config: &Config) -> Client {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(config.connect_timeout))
            .timeout_global(Some(config.request_timeout))
            .user_agent(USER_AGENT)
            .max_idle_connections_per_host(config.max_in_flight.max(3))
            .max_idle_connections(config.max_in_flight.max(10))
            .build()
            .into();
        Client { agent }
    }

    /// POSTs `body` and reads at most `max_response` bytes of the answer; `Err` carries a
    /// description of the network failure.
    pub(crate) fn post(
        &self,
        url: &str,
        content_type: &str,
        gzip: bool,
        headers: &[(String, Secret)],
        body: &[u8],
        max_response: u64,
    ) -> Result<Response, String> {
        let mut request = self.agent.post(url).header("Content-Type", content_type);
        if gzip {
            request = request.header("Content-Encoding", "gzip");
        }
        for (name, value) in headers {
            request = request.header(name.as_str(), value.expose());
        }
        let mut response = request.send(body).map_err(|e| {
            let shown = redact_url(url);
            format!(
                "request to {shown} failed: {}",
                describe(&e).replace(url, &shown)
            )
        })?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, SystemTime::now()));
        // Read (a bounded part of) the body so the connection can be reused.
        let raw = response
            .body_mut()
            .with_config()
            .limit(max_response)
            .read_to_vec()
            .unwrap_or_default();
        Ok(Response {
            status,
            retry_after,
            body: String::from_utf8_lossy(&raw).into_owned(),
            raw,
        })
    }
}

fn describe(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(kind) => format!("timed out ({kind})"),
        ureq::Error::Io(io) => io.to_string(),
        other => other.to_string(),
    }
}
