//! One HTTP POST, and nothing else.
//!
//! Why it exists: the rest of the pipeline should not know ureq. This wraps a shared
//! `ureq::Agent` (one keep-alive pool for all senders) configured the way a shipper needs:
//! statuses come back as responses (not errors) so they can be classified, redirects are
//! never followed (a 302 would turn the POST into a GET and lose the body), bodies are
//! sent from memory so `Content-Length` is always set, and every attempt is bounded by
//! connect and request timeouts. TLS trust, the client certificate and the proxy come
//! from `network` (loaded at `build()`); a failure they explain (a certificate refused, a
//! proxy refusing `CONNECT`) comes back as [`NetError::setup`], worded by `tls` and
//! `proxy`, so it is not retried as if it were a blip. Error texts never include the
//! URL's query or user-info, nor proxy credentials.

use std::time::{Duration, SystemTime};

use super::backoff::parse_retry_after;
use super::network::Network;
use crate::config::{redact_url, Config};
use crate::support::secret::Secret;

/// Most bytes of an error answer (non-2xx) read: enough for any vendor's error text.
pub(crate) const ERROR_BODY_BYTES: u64 = 64 * 1024;

/// Longest time spent reading an error answer's body once its headers arrived (checked
/// between reads; a body that sends nothing at all is bounded by the request timeout).
pub(crate) const ERROR_BODY_TIME: Duration = Duration::from_secs(2);

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

/// A request that got no answer.
#[derive(Debug)]
pub(crate) struct NetError {
    /// What happened, without secrets.
    pub message: String,
    /// True for a failure that will not fix itself in a moment (TLS trust, a client
    /// certificate refused, the wrong scheme, a proxy refusing): retried at the backoff
    /// ceiling, with health failing.
    pub setup: bool,
}

/// A shared HTTP client.
#[derive(Clone)]
pub(crate) struct Client {
    agent: ureq::Agent,
    /// The proxy's `host:port`, for error messages.
    proxy: Option<String>,
}

impl Client {
    pub(crate) fn new(config: &Config, network: &Network) -> Client {
        let config_built = ureq::Agent::config_builder()
            .tls_config(network.trust.config.clone())
            // Always set: ureq would otherwise read the environment itself, by other rules.
            .proxy(network.proxy.proxy.clone())
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(config.connect_timeout))
            .timeout_global(Some(config.request_timeout))
            .user_agent(USER_AGENT)
            .max_idle_connections_per_host(config.max_in_flight.max(3))
            .max_idle_connections(config.max_in_flight.max(10))
            .build();
        let agent = ureq::Agent::with_parts(
            config_built,
            ureq::unversioned::transport::DefaultConnector::default(),
            super::resolve::LiteralFirst::default(),
        );
        Client {
            agent,
            proxy: network.proxy.host.clone(),
        }
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
    ) -> Result<Response, NetError> {
        let mut request = self.agent.post(url).header("Content-Type", content_type);
        if gzip {
            request = request.header("Content-Encoding", "gzip");
        }
        for (name, value) in headers {
            request = request.header(name.as_str(), value.expose());
        }
        let mut response = request.send(body).map_err(|e| {
            let shown = redact_url(url);
            if let Some(message) = self.explain(&e, url) {
                return NetError {
                    message: format!("request to {shown} failed: {message}"),
                    setup: true,
                };
            }
            NetError {
                message: format!(
                    "request to {shown} failed: {}",
                    describe(&e).replace(url, &shown)
                ),
                setup: false,
            }
        })?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, SystemTime::now()));
        // Read (a bounded part of) the body so the connection can be reused. An error
        // answer is only shown, so it has its own short bounds: an intake that drips its
        // 503 does not hold the sender for the whole request timeout.
        let (limit, time) = if (200..=299).contains(&status) {
            (max_response, None)
        } else {
            (max_response.min(ERROR_BODY_BYTES), Some(ERROR_BODY_TIME))
        };
        let (raw, cut) = read_body(response.body_mut(), limit, time);
        if let (true, Some(e)) = ((200..=299).contains(&status), cut) {
            // RFC 9112 section 8: an answer that ends before its framing says is
            // incomplete, not an answer. Its status proves nothing was kept (an intake
            // that resets mid-answer may have dropped the request; a bulk answer's
            // per-event errors may be in the part that never came), so it is a failed
            // attempt, sent again: a duplicate at worst, never a silent loss.
            return Err(NetError {
                message: format!(
                    "request to {} failed: the intake answered {status} but the answer was cut short ({e}); it is sent again",
                    redact_url(url)
                ),
                setup: false,
            });
        }
        let host = url.parse::<ureq::http::Uri>().ok();
        let host = host.as_ref().and_then(|u| u.host()).unwrap_or("the intake");
        if let Some(message) = super::tls::server_tls_page(status, &raw, host) {
            return Err(NetError {
                message: format!("request to {} failed: {message}", redact_url(url)),
                setup: true,
            });
        }
        Ok(Response {
            status,
            retry_after,
            body: String::from_utf8_lossy(&raw).into_owned(),
            raw,
        })
    }
}

impl Client {
    /// A TLS or proxy failure in words a person can act on; `None` for other failures.
    fn explain(&self, e: &ureq::Error, url: &str) -> Option<String> {
        let uri = url.parse::<ureq::http::Uri>().ok();
        let host = uri.as_ref().and_then(|u| u.host()).unwrap_or("the intake");
        let https = uri
            .as_ref()
            .and_then(|u| u.scheme_str())
            .is_some_and(|s| s.eq_ignore_ascii_case("https"));
        if let Some(proxy) = &self.proxy {
            if let Some(m) = super::proxy::describe(e, proxy) {
                return Some(m);
            }
        }
        super::tls::describe(e, host, https)
    }
}

/// At most `limit` bytes of `body` (what arrived before an error, if any), reading for at
/// most `time` when given, and the error that cut the answer short, if one did (stopping
/// at `limit` or `time` is not one). Never fails: an error answer cut short is shown as
/// far as it came.
fn read_body(
    body: &mut ureq::Body,
    limit: u64,
    time: Option<Duration>,
) -> (Vec<u8>, Option<std::io::Error>) {
    use std::io::Read;
    let started = std::time::Instant::now();
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut reader = body.with_config().reader();
    let mut raw = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    while raw.len() < limit {
        if time.is_some_and(|t| started.elapsed() >= t) {
            break;
        }
        match reader.read(&mut chunk) {
            Ok(0) => break,
            Err(e) => return (raw, Some(e)),
            Ok(n) => raw.extend_from_slice(&chunk[..n.min(limit - raw.len())]),
        }
    }
    (raw, None)
}

fn describe(e: &ureq::Error) -> String {
    let text = match e {
        ureq::Error::Timeout(kind) => return format!("timed out ({kind})"),
        ureq::Error::Io(io) => io.to_string(),
        other => other.to_string(),
    };
    match mismatch(&text) {
        Some(advice) => advice.to_owned(),
        None => text,
    }
}

/// What a TLS or protocol mismatch means and what to change, from the error's text (the
/// TLS library's own words are type names, not advice); `None` for other errors.
fn mismatch(text: &str) -> Option<&'static str> {
    let t = text.to_ascii_lowercase();
    Some(
        if t.contains("invalidcontenttype") || t.contains("corrupt message") {
            "the endpoint is https:// but the server answered in plain HTTP, not TLS: use http:// for this port, or the intake's TLS port"
        } else if t.contains("invalid peer certificate")
            || t.contains("certificate") && t.contains("rustls")
        {
            if t.contains("unknownissuer")
                || t.contains("caused")
                || t.contains("causedasendentity")
                || t.contains("selfsigned")
            {
                "the intake's TLS certificate is not trusted: it is self-signed or signed by a CA this machine does not trust; install that CA in the system trust store, or give the intake a certificate from a trusted CA"
            } else if t.contains("expired") || t.contains("notvalidyet") {
                "the intake's TLS certificate is expired or not valid yet: renew it on the intake (or check this machine's clock)"
            } else if t.contains("notvalidforname") || t.contains("name") {
                "the intake's TLS certificate is not valid for the endpoint's host name: use the host name the certificate names, or fix the certificate"
            } else {
                "the intake's TLS certificate was rejected: check that it is valid, unexpired, for this host name and from a trusted CA"
            }
        } else if t.contains("invalid http version")
            || t.contains("http version")
            || t.contains("invalid status")
            || t.contains("httparse")
            || t.contains("status line")
        {
            "the server did not answer in HTTP/1.1 (it may expect TLS: use https://), or something that is not an HTTP intake listens on this port: check the endpoint's scheme and port"
        } else {
            return None;
        },
    )
}
