//! HTTP control endpoints under `/_intake/`.
//!
//! When logship runs in a child process (CLI tests, the benchmarks), the test cannot
//! call [`Intake`](crate::Intake) methods across the process boundary; these
//! endpoints expose the same knobs over plain HTTP. Control requests are never
//! delayed, paused, faulted or counted as intake requests.
//!
//! | Endpoint | Effect |
//! |---|---|
//! | `GET /_intake/stats` | [`IntakeStats`](crate::IntakeStats) as JSON |
//! | `GET /_intake/events[?n=N]` | the last N (default 100, at most 1000) accepted events, oldest first, as `[{"vendor":…,"event":{…}}]` (kept even without `keep_events`) |
//! | `POST /_intake/fail?count=N&status=S[&retry_after=V]` | next N requests get status S (body = this request's body; `Retry-After: V` as given, e.g. `0`, `99999999999`, an HTTP date) |
//! | `POST /_intake/fail_items?count=N&status=S[&marker=M]` | the next N `_bulk` items (containing M) fail with item status S |
//! | `POST /_intake/close?count=N` | next N requests are read, then the connection is closed unanswered |
//! | `POST /_intake/misbehave?count=N&mode=M[&status=S&bytes=B&ms=T&len=L&claimed=C&location=U]` | next N requests get the [`WireFault`](crate::WireFault) named M (`never-answer`, `drip`, `huge`, `endless-chunked`, `garbage-status`, `not-http`, `reset-before`, `reset-mid`, `reset-after`, `short-length`, `long-length`, `redirect`, `echo-headers`, ...) |
//! | `POST /_intake/pause` / `POST /_intake/resume` | hold / release answers |
//! | `POST /_intake/delay?ms=N` | delay every answer by N ms |
//! | `POST /_intake/reset` | clear recorded state and counters |
//! | `POST /_intake/clear_faults` | drop the request faults still pending (`fail`, `close`, `misbehave`) |
//! | `POST /_intake/splunk_ack?enabled=B[&lose_every=N]` | Splunk indexer acknowledgement on or off, losing every Nth ackId (see [`AckMode`](crate::AckMode)) |
//! | `POST /_intake/splunk_ack_fail?count=N&status=S` or `...&mode=M` | the next N Splunk ack queries get status S (body = this request's body) or the wire fault M |

use std::time::Duration;

use serde_json::json;

use crate::faults::{Fault, ItemFault};
use crate::state::Shared;
use crate::wire::WireFault;
use logship_http::{Request, Response};

/// Path prefix reserved for control endpoints.
pub(crate) const PREFIX: &str = "/_intake/";

/// Answers one control request.
pub(crate) fn handle(shared: &Shared, req: &Request) -> Response {
    let endpoint = req.path().strip_prefix(PREFIX).unwrap_or("");
    let expected_method = match endpoint {
        "stats" | "events" => "GET",
        "fail" | "fail_items" | "close" | "misbehave" | "pause" | "resume" | "delay" | "reset"
        | "clear_faults" | "splunk_ack" | "splunk_ack_fail" => "POST",
        _ => return Response::error(404, &format!("unknown control endpoint {:?}", req.path())),
    };
    if req.method != expected_method {
        let mut resp = Response::error(405, &format!("{} requires {expected_method}", req.path()));
        resp.headers.push(("Allow".into(), expected_method.into()));
        return resp;
    }
    match run(shared, endpoint, req) {
        Ok(resp) => resp,
        Err(message) => Response::error(400, &message),
    }
}

fn run(shared: &Shared, endpoint: &str, req: &Request) -> Result<Response, String> {
    let ok = || Response::json(200, &json!({ "ok": true }));
    match endpoint {
        "stats" => {
            let stats = serde_json::to_value(shared.stats()).map_err(|e| e.to_string())?;
            Ok(Response::json(200, &stats))
        }
        "events" => {
            let n = match req.query_param("n") {
                None => 100,
                Some(v) => v
                    .parse::<usize>()
                    .map_err(|_| format!("n={v}: must be a whole number"))?,
            };
            let events: Vec<serde_json::Value> = shared
                .recent_events(n.min(crate::state::RECENT_EVENTS))
                .into_iter()
                .map(|(vendor, event)| json!({ "vendor": vendor, "event": event }))
                .collect();
            Ok(Response::json(200, &serde_json::Value::Array(events)))
        }
        "fail" => {
            let count = count_param(req)?;
            let status: u16 = required_param(req, "status")?;
            if !(200..=599).contains(&status) {
                return Err(format!("status {status} out of range 200..=599"));
            }
            let mut headers = Vec::new();
            if let Some(value) = req.query_param("retry_after") {
                // As given (absurd values are the point); `+` and `%20` stand for spaces.
                let value = value
                    .replace('+', " ")
                    .replace("%20", " ")
                    .replace("%2C", ",");
                headers.push(("Retry-After".to_string(), value));
            }
            let body = String::from_utf8_lossy(&req.body).into_owned();
            if !body.is_empty() {
                let ct = if serde_json::from_str::<serde_json::Value>(&body).is_ok() {
                    "application/json"
                } else {
                    "text/plain; charset=utf-8"
                };
                headers.push(("Content-Type".to_string(), ct.to_string()));
            }
            shared.fail_next(
                count,
                Fault::Status {
                    status,
                    headers,
                    body,
                },
            );
            Ok(ok())
        }
        "fail_items" => {
            let count = count_param(req)?;
            let status: u16 = required_param(req, "status")?;
            if !(300..=599).contains(&status) {
                return Err(format!("item status {status} out of range 300..=599"));
            }
            let fault = match req.query_param("marker") {
                Some(marker) => ItemFault::containing(marker, count, status),
                None => ItemFault::next(count, status),
            };
            shared.fail_items(fault);
            Ok(ok())
        }
        "misbehave" => {
            let count = count_param(req)?;
            let mode = req
                .query_param("mode")
                .ok_or_else(|| "missing query parameter \"mode\"".to_owned())?;
            let wire = WireFault::parse(mode, &|name| req.query_param(name).map(str::to_owned))?;
            shared.fail_next(count, Fault::Wire(wire));
            Ok(ok())
        }
        "close" => {
            shared.fail_next(count_param(req)?, Fault::CloseConnection);
            Ok(ok())
        }
        "pause" => {
            shared.set_paused(true);
            Ok(ok())
        }
        "resume" => {
            shared.set_paused(false);
            Ok(ok())
        }
        "delay" => {
            let ms: u64 = required_param(req, "ms")?;
            shared.set_delay(Duration::from_millis(ms));
            Ok(ok())
        }
        "reset" => {
            shared.reset();
            Ok(ok())
        }
        "clear_faults" => {
            shared.clear_faults();
            Ok(ok())
        }
        "splunk_ack" => {
            let enabled: bool = required_param(req, "enabled")?;
            let lose_every: u64 = match req.query_param("lose_every") {
                None => 0,
                Some(_) => required_param(req, "lose_every")?,
            };
            shared.settings().splunk_ack.set_mode(crate::AckMode {
                enabled,
                lose_every,
            });
            Ok(ok())
        }
        "splunk_ack_fail" => {
            let count = count_param(req)?;
            let fault = match req.query_param("mode") {
                Some(mode) => Fault::Wire(WireFault::parse(mode, &|name| {
                    req.query_param(name).map(str::to_owned)
                })?),
                None => Fault::Status {
                    status: required_param(req, "status")?,
                    headers: vec![("Content-Type".into(), "application/json".into())],
                    body: String::from_utf8_lossy(&req.body).into_owned(),
                },
            };
            shared.settings().splunk_ack.fail_queries(count, fault);
            Ok(ok())
        }
        _ => Err(format!("unknown control endpoint {endpoint:?}")),
    }
}

/// `count` query parameter, defaulting to 1.
fn count_param(req: &Request) -> Result<usize, String> {
    match req.query_param("count") {
        None => Ok(1),
        Some(_) => required_param(req, "count"),
    }
}

fn required_param<T: std::str::FromStr>(req: &Request, name: &str) -> Result<T, String> {
    let raw = req
        .query_param(name)
        .ok_or_else(|| format!("missing query parameter {name:?}"))?;
    raw.parse()
        .map_err(|_| format!("invalid value {raw:?} for query parameter {name:?}"))
}
