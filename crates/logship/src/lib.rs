//! # logship
//!
//! Ships application logs to log intakes (Datadog, Splunk HEC, New Relic, Dynatrace,
//! Grafana Loki, Elasticsearch/OpenSearch, an OpenTelemetry collector over OTLP/HTTP, or
//! any HTTP endpoint that takes JSON) in batches, without ever slowing the application
//! down.
//!
//! A log call captures the event into an owned [`Record`] and hands it to a bounded
//! in-memory queue, then returns: it never waits on the network and never performs I/O.
//! Background threads that logship owns cut batches (by record count, encoded bytes, or
//! the age of the oldest event), compress them, and POST them with several requests in
//! flight, retrying transient failures with jittered backoff. Every event ends in a
//! counted outcome, readable through [`Logship::stats`].
//!
//! Start a pipeline with [`Logship::builder`]; [`Builder::build_layer`] (for `tracing`),
//! [`Builder::build_logger`] (for `log`) or [`Builder::build`] (to [`Logship::push`]
//! records yourself) returns the handle and a [`Guard`] that delivers what is queued when
//! it drops. The examples below each start a local intake (the `logship-intake` crate) on
//! 127.0.0.1, ship to it and check what it received; the lines that start it are hidden.
//!
//! # The delivery contract
//!
//! Delivery is at least once: every event a log call accepts ends in exactly one counted
//! outcome ([`Stats`]): delivered, written to the disk spill (and replayed later), kept
//! as a dead letter (the intake rejected it for good), or, with spill off or its cap
//! reached, counted as lost. An event refused at the log call (queue full, or after
//! shutdown) is counted too. An intake that accepted a request whose answer logship did
//! not see gets that batch again, so duplicates are possible; loss is not, except in the
//! cases below.
//!
//! Every event carries an [`EventId`] from the moment it is captured (a per-process random
//! prefix and a sequence number; scheme and collision odds in its docs), kept with it in
//! the spill, so a resent event has the same id as the first copy. Elasticsearch and
//! OpenSearch make that exactly-once: the id is the document's `_id` in a `create`, and a
//! second copy is answered `409 version_conflict_engine_exception`, counted as
//! [`Stats::already_delivered`] (and delivered), never failed or resent. The other vendors
//! get it as an attribute (`logship.id`, OTLP `log.record.uid`, Loki `logship_id`) to
//! deduplicate on in queries (docs/vendors.md, "Event identity"); `event_id = false` sends
//! none. What happens at the end of a program:
//!
//! - **The guard is dropped at once** (`let (layer, _) = builder.build_layer()?` drops
//!   it; `_guard` keeps it): the pipeline shuts down immediately, every later event is
//!   refused and counted as `dropped_closed`, and the first one prints a warning on
//!   stderr saying so. Bind the guard to a named variable that lives as long as `main`.
//! - **The guard drops** (it goes out of scope, or `main` returns with it alive): it
//!   calls [`Logship::shutdown`] with the configured [`Builder::shutdown_timeout`]
//!   (default 5 s). Shutdown stops accepting events, delivers what is queued and in
//!   flight, and waits for it at most that long. If time runs out, retries stop and what
//!   is left is written to the spill (spill on, the default) or counted as abandoned,
//!   within a further 500 ms (50 ms with spill off). A batch whose request is still out
//!   then is not waited for: it is spilled too (or counted as abandoned), so it may arrive
//!   twice (at-least-once) but is never left uncounted. Anything not delivered is
//!   reported on stderr. The drop therefore returns within
//!   about the timeout plus that grace, whether the intake is up or not.
//! - **`main` returns**: Rust drops `main`'s locals first, so a guard held in `main`
//!   delivers as above before the process exits. Nothing else flushes at exit: a guard
//!   that is never dropped (kept in a `static`, leaked, or owned by a thread still
//!   running when `main` returns) delivers nothing, and the events still in memory are
//!   lost when the process ends. The log4rs appender is never dropped by log4rs at exit:
//!   call `log::logger().flush()` before returning from `main` (see the log4rs example).
//! - **A panic**, anywhere in the program (any thread, `panic = "unwind"` or `"abort"`):
//!   with [`Builder::flush_on_panic`] (on by default) logship's panic hook first flushes
//!   every live pipeline, at most the shorter of the shutdown timeout and 2 s, then runs
//!   the hook that was installed before it (the panic message is printed as usual). So
//!   the events logged before a crash are delivered even when no destructor runs. A panic
//!   that unwinds out of `main` then also drops the guard, as on a normal return.
//! - **[`std::process::exit`]** (and `abort`): destructors do not run, so the guard does
//!   not flush; events not yet delivered (queued, in the batch being built, in flight)
//!   are lost, and only what was already spilled survives for the next run. Call
//!   [`Logship::shutdown`] (or [`Logship::flush`]) first:
//!   `let report = logship.shutdown(timeout); std::process::exit(if report.complete { 0 } else { 1 })`.
//! - **SIGTERM, SIGINT**: the library installs no signal handler (the `logship ship`
//!   sidecar does: it delivers or spills what is in memory and exits with a status that
//!   says which). With the default action the process ends at once, without destructors,
//!   so it is the `process::exit` case. To
//!   deliver on SIGTERM (as a container stop sends it), handle the signal in the
//!   application (for example `tokio::signal` or the `ctrlc` crate with its `termination`
//!   feature) and return from `main` or call [`Logship::shutdown`]; the container's grace
//!   period must exceed `shutdown_timeout`.
//! - **SIGKILL, out of memory, power loss**: what is in memory is lost: at most
//!   `queue_capacity` events plus the batches in flight. What reached the spill survives
//!   (a power loss too with `spill_fsync = always`) and is replayed by the next pipeline
//!   that uses the same `spill_dir`.
//!
//! [`ShutdownReport::complete`] says whether everything accepted was delivered.
//!
//! Start-up never fails because of the state of the machine: a spill directory held by
//! another process or on a read-only filesystem makes the pipeline start without spill
//! (said once on stderr and in [`Stats::spill_unavailable`]); the default directory has
//! eight slots so several instances of one service can share a host. Opt into a strict
//! start-up with [`Builder::spill_required`]. Only configuration the user got wrong fails
//! `build`, with a message that names the field and the fix (it reads the same through
//! `fn main() -> Result<(), Box<dyn Error>>`). logship's own threads run with a no-op
//! `tracing` dispatcher, so the HTTP client's debug records never reach the application's
//! subscriber, and a closed stderr is counted (`report_write_errors`), never a crash.
//!
//! # Volume budgets and the stall alarm
//!
//! A budget caps what the pipeline ships per UTC clock hour and per UTC day, in bytes
//! (a record's size in memory, a close proxy for what is sent before compression) or in
//! events ([`Builder::budget_day_bytes`] and its siblings, keys `budget_*`). At 80 % of a
//! cap one event with `logship.notice = "budget_warning"` ships and
//! [`Health::BudgetWarning`] shows; at 100 % one `budget_exhausted` notice ships and
//! TRACE and DEBUG are dropped; past half of the overdraft
//! ([`Builder::budget_overdraft_percent`], default 10 %) INFO and WARN are sampled
//! (ERROR kept); past the overdraft everything is dropped until the window ends. Each of
//! these is counted ([`Stats::over_budget`]), is not a loss (the user asked for it) and
//! is named in the shutdown report and the CLI summary. What was spent survives restarts
//! in `budget.json` beside the spill; a corrupt file is said once and the budget starts
//! fresh. A level can also have caps of its own ([`Builder::budget_level_day_bytes`],
//! keys `budget_level_hour_bytes` / `budget_level_day_bytes`, `level=bytes` items): past
//! one, that level's events are dropped (counted in `budget_dropped_level`) while the
//! other levels go on; these caps send no notice of their own.
//! [`Builder::stall_after`] turns on the stall alarm: [`Health::Stalled`] and one
//! [`Builder::on_stall`] call when nothing is delivered for that long while events wait,
//! one more when delivery resumes (docs/metrics.md).
//!
//! # Design choices
//!
//! - No async runtime inside: the HTTP client is blocking `ureq` on threads logship owns,
//!   so the same code works in `fn main` and inside tokio, and dropping the guard inside a
//!   runtime is safe (it blocks that thread for at most the shutdown timeout).
//! - Events logged on logship's own threads (for example by the HTTP client or by an
//!   [`on_error`](Builder::on_error) callback) are ignored by the `tracing` layer and the
//!   `log` logger ([`is_logship_thread`]), so the shipper can never feed on its own logs.
//! - Memory is bounded in events and bytes; what does not fit is dropped and counted,
//!   never waited for (unless [`Overflow::Block`] is chosen).
//! - Each vendor's limits (entries, bytes, compressed size) are held by construction, and
//!   its own answers are read: partial successes, per-item statuses, retryable codes.
//! - The spill directory is on by default: batches the intake could not take are written
//!   to disk, checksummed, and replayed oldest first when it recovers, also by the next run.
//!
//! # Control at the source
//!
//! Opt in to hold events back where they are logged, before their record is built:
//! [`Builder::burst_limit`] gives each call site (tracing's callsite; `log`'s target +
//! file + line; for a record handed to [`Logship::push`], its target and level) a token
//! bucket per level: the first events of a burst ship, the rest are counted in
//! [`Stats::burst_suppressed`] and, when the burst ends (quiet for 1 s, every
//! `burst_summary_interval_ms` while it lasts, and at shutdown), one WARN event with
//! `logship.notice = "burst_summary"` says "412 similar events suppressed in 10.0 s at
//! SITE (LEVEL)" with its count, site, level and first/last time. Errors are limited
//! only when [`Level::Error`] is given a limit. [`Builder::sample_rate`] keeps a fraction
//! of a level, decided by the event's `trace_id` field when it has one (a trace's events
//! are all kept or all dropped, in every thread and process using the same rate; turn it
//! off with [`Builder::sample_by_trace`] for the cheapest check) and counted in
//! [`Stats::sampled_out`]. Held-back events are not lost: for every log call,
//! calls = `enqueued` + [`Stats::dropped`] + [`Stats::suppressed`] (+
//! [`Stats::queue_full_returned`]: records [`Logship::offer`] handed back).
//! [`Builder::drop_notices`] adds one WARN event (`logship.notice = "dropped"`) per drop
//! episode: "logship dropped N events (queue full: a, burst limit: b) between T1 and T2".
//! These synthetic events (counted in [`Stats::notices`]) are added by the batcher past
//! the queue and the limits, wait for room in the queue's memory bound instead of being dropped,
//! and so can never feed themselves. The check costs about 40 ns and allocates nothing
//! (`cargo bench -p logship-bench --bench control`).
//!
//! Deployed programs are configured without code: [`Config::load`] reads a TOML file,
//! [`Config::apply_env`] reads `LOGSHIP_<KEY>` variables (and, for the `otlp` vendor,
//! the OpenTelemetry SDK's `OTEL_EXPORTER_OTLP_*` ones), and [`Layered`] combines
//! defaults < file < environment < explicit builder settings, reporting where each value
//! came from. Unknown keys and bad values fail with the key, the value (secrets hidden),
//! what is allowed and the source.
//!
//! What each [`Vendor`] sends, field by field, is in
//! [docs/vendors.md](https://github.com/logship/logship/blob/main/docs/vendors.md); the
//! intakes' rules are in
//! [docs/wire-formats.md](https://github.com/logship/logship/blob/main/docs/wire-formats.md),
//! and every option in
//! [docs/configuration.md](https://github.com/logship/logship/blob/main/docs/configuration.md).
//!
//! # Cargo features
//!
//! - `tracing`, `log`, `log4rs` (default): the [`LogshipLayer`], the [`LogshipLogger`] and
//!   the [`log4rs`] appender.
//! - `metrics` (off): every field of [`Stats`] recorded through the `metrics` facade as
//!   `logship_<field>`, so the application's Prometheus, StatsD or OpenTelemetry
//!   exporter picks it up (names, kinds and units: docs/metrics.md).
//! - `opentelemetry` (off): trace correlation from the current OpenTelemetry context. With
//!   `tracing-opentelemetry`'s layer in the same subscriber, each event carries the trace
//!   id, span id and trace flags of its span; a `log` record, or an event outside any
//!   span, those of `opentelemetry::Context::current()`. Each vendor gets its own
//!   correlation fields (`dd.trace_id`, `trace.id`, OTLP `traceId`, ...: docs/vendors.md,
//!   "Trace correlation"). Without the feature, fields named `trace_id` and `span_id` (W3C
//!   hex) that the application records are read the same way.
//!
//! # Examples
//!
//! ## `tracing`, filtered with `EnvFilter`
//!
//! A global filter (a `tracing_subscriber::EnvFilter` added as a layer)
//! decides what any layer sees; a per-layer filter (`with_filter`) decides what logship
//! ships, so another layer (a console formatter, say) can show more than is shipped.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let intake = logship_intake::Intake::start(Default::default())?;
//! # let endpoint = intake.url("/logs");
//! use std::time::Duration;
//! use tracing_subscriber::{prelude::*, EnvFilter};
//!
//! let (layer, guard) = logship::Logship::builder()
//!     .endpoint(endpoint) // an NDJSON intake
//!     .service("orders-api")
//!     .linger(Duration::from_millis(10))
//! #   .spill(false)
//! #   .report_to_stderr(false)
//!     .build_layer()?;
//! let logship = layer.logship().clone();
//! tracing_subscriber::registry()
//!     // Global: nothing from `noisy_dependency`, and nothing below debug.
//!     .with(EnvFilter::new("debug,noisy_dependency=off"))
//!     // Per layer: logship ships info and up, and debug from `app::orders`.
//!     .with(layer.with_filter(EnvFilter::new("info,app::orders=debug")))
//!     .init();
//!
//! tracing::info!(target: "app::orders", order_id = 7, "order placed");
//! tracing::debug!(target: "app::orders", "cart priced");
//! tracing::debug!(target: "app::cache", "not shipped: debug outside app::orders");
//! tracing::error!(target: "noisy_dependency", "not shipped: filtered globally");
//!
//! logship.flush(Duration::from_secs(5))?; // or let the guard deliver at the end of main
//! let shipped = intake.sorted_strings_at("/message");
//! assert_eq!(shipped, ["cart priced", "order placed"]);
//! let placed = intake.events().into_iter().find(|e| e.value["message"] == "order placed");
//! assert_eq!(placed.unwrap().value["order_id"], 7);
//! drop(guard);
//! # Ok(())
//! # }
//! ```
//!
//! ## `log`
//!
//! [`Builder::build_logger`] returns a `log::Log`; key-values become fields.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let intake = logship_intake::Intake::start(Default::default())?;
//! # let endpoint = intake.url("/logs");
//! # use std::time::Duration;
//! let (logger, guard) = logship::Logship::builder()
//!     .endpoint(endpoint)
//! #   .linger(Duration::from_millis(10))
//! #   .spill(false)
//! #   .report_to_stderr(false)
//!     .build_logger()?;
//! logger.level(log::LevelFilter::Info).init()?;
//!
//! log::info!(user = "ann", ok = true; "request {} done", 5);
//! log::debug!("not shipped: below the logger's level");
//!
//! drop(guard); // what `main` returning does: deliver what is queued, then stop
//! let events = intake.events();
//! assert_eq!(events.len(), 1);
//! assert_eq!(events[0].value["message"], "request 5 done");
//! assert_eq!(events[0].value["user"], "ann");
//! assert_eq!(events[0].value["ok"], true);
//! # Ok(())
//! # }
//! ```
//!
//! ## log4rs, from its configuration file
//!
//! Register the `kind: batch_http` appender with [`log4rs::init_file`] (instead of
//! `log4rs::init_file(path, Default::default())`, or pass [`log4rs::deserializers`] to
//! log4rs yourself); which intake the logs reach is then decided by the file alone.
//! Every logship option is a key of the appender (or its Java appender name, such as
//! `maxBatchRecords`), `${env:VAR}` and `${env:VAR:-default}` are substituted, and
//! `LOGSHIP_*` variables override the file. An invalid appender makes `init_file` fail
//! with the field and the fix. On reload (`refresh_rate`) the replaced appender's pipeline
//! shuts down on a background thread and hands its spill directory to the new one.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let intake = logship_intake::Intake::start(Default::default())?;
//! # let endpoint = intake.url("");
//! # let dir = std::env::temp_dir().join(format!("logship-doc-log4rs-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! # let path = dir.join("log4rs.yaml");
//! let yaml = format!(
//!     "
//! appenders:
//!   shipper:
//!     kind: batch_http
//!     vendor: datadog
//!     endpoint: {endpoint}     # the local emulation; without it, the Datadog site
//!     apiKey: ${{env:DD_API_KEY:-local-test-key}}
//!     service: shop
//!     lingerMillis: 10
//!     spill_enabled: false
//! #     report_to_stderr: false
//! root:
//!   level: info
//!   appenders: [shipper]
//! "
//! );
//! std::fs::write(&path, yaml)?;
//!
//! logship::log4rs::init_file(&path)?;
//! log::info!(target: "shop::orders", order_id = 42; "order placed");
//! log::logger().flush(); // log4rs does not flush at exit: do it before main returns
//!
//! let events = intake.events();
//! assert_eq!(events.len(), 1);
//! assert_eq!(events[0].value["message"], "order placed");
//! assert_eq!(events[0].value["service"], "shop");
//! assert_eq!(intake.requests()[0].status, 202); // Datadog's answer
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```
//!
//! ## A TOML configuration file
//!
//! [`Config::from_toml_str`] (or [`Config::load`] for a path) reads one file over the
//! defaults; [`Layered`] stacks defaults < files < `LOGSHIP_*` variables < explicit
//! settings and says where each value came from.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let intake = logship_intake::Intake::start(Default::default())?;
//! # let endpoint = intake.url("/logs");
//! let file = format!(
//!     r#"
//! endpoint = "{endpoint}"
//! service = "checkout"
//! tags = ["env:prod", "team:payments"]
//! linger_ms = 10
//! spill_enabled = false
//! report_to_stderr = false
//! "#
//! );
//!
//! let config = logship::Config::from_toml_str(&file)?;
//! assert_eq!(config.service.as_deref(), Some("checkout"));
//!
//! // The same file under a LOGSHIP_SERVICE variable (here a stand-in for the process
//! // environment, which `Layered::new()` reads by default).
//! let resolved = logship::Layered::new()
//!     .toml_str("logship.toml", file)
//!     .env(|var| (var == "LOGSHIP_SERVICE").then(|| "checkout-canary".to_owned()))
//!     .resolve()?;
//! assert_eq!(resolved.config.service.as_deref(), Some("checkout-canary"));
//! assert_eq!(resolved.origin("service").to_string(), "env LOGSHIP_SERVICE");
//! assert_eq!(resolved.origin("linger_ms").to_string(), "file logship.toml");
//!
//! let (logship, guard) = logship::Builder::from_config(resolved.config).build()?;
//! let mut record = logship::Record::new(logship::Level::Info, "billing");
//! record.message("invoice sent").field("invoice", 991u64);
//! assert!(logship.push(record).is_ok()); // Err(Rejected) when full: counted, never waits on I/O
//! drop(guard);
//! assert_eq!(intake.events()[0].value["invoice"], 991);
//! # Ok(())
//! # }
//! ```
//!
//! ## Datadog
//!
//! A vendor sets the path, the headers, the body shape and the limits. The API key comes
//! from [`Builder::api_key`], else the vendor's usual variable (`DD_API_KEY`), else
//! `LOGSHIP_API_KEY`, and is never shown in `Debug` output, errors or stats.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # use logship_intake::{Intake, IntakeConfig};
//! # let intake = Intake::start(IntakeConfig { api_key: Some("dd-key".into()), ..Default::default() })?;
//! # use std::time::Duration;
//! use logship::{Level, Logship, Record, Vendor};
//!
//! let (logship, guard) = Logship::builder()
//!     .vendor(Vendor::Datadog)
//!     .site("datadoghq.eu") // https://http-intake.logs.datadoghq.eu/api/v2/logs
//!     .endpoint(intake.url("")) // the local emulation instead; /api/v2/logs is added
//!     .api_key("dd-key")
//!     .service("checkout")
//!     .tag("env:prod")
//!     .hostname("web-1")
//! #   .linger(Duration::from_millis(10))
//! #   .spill(false)
//! #   .report_to_stderr(false)
//!     .build()?;
//! let mut record = Record::new(Level::Error, "app::pay");
//! record.message("payment declined").field("order_id", 42u64);
//! assert!(logship.push(record).is_ok());
//! drop(guard);
//!
//! let request = &intake.requests()[0];
//! assert_eq!((request.path.as_str(), request.status), ("/api/v2/logs", 202));
//! assert_eq!(request.header("dd-api-key"), Some("dd-key"));
//! let event = &intake.events()[0].value;
//! assert_eq!(event["message"], "payment declined");
//! assert_eq!(event["status"], "error");
//! assert_eq!(event["service"], "checkout");
//! assert_eq!(event["ddtags"], "env:prod");
//! assert_eq!(event["hostname"], "web-1");
//! assert_eq!(event["order_id"], 42);
//! assert!(intake.violations().is_empty());
//! # Ok(())
//! # }
//! ```

// The workspace's `[lints]` table forbids unsafe code too; this line keeps the promise in
// the published crate's own source. Every public item is documented.
#![forbid(unsafe_code)]
#![warn(missing_docs)]
// The application owns stdout and its process: the library never writes to one or exits the other.
#![warn(clippy::print_stdout, clippy::exit)]

mod admit;
mod batch;
mod capture;
mod config;
mod deliver;
mod error;
/// Wrappers over private parsers for the fuzz targets in `fuzz/`. NOT API: only with the
/// `fuzzing` feature (off by default), hidden, and changed in any release without notice.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod observe;
mod pipeline;
mod queue;
mod spill;
mod support;
mod vendors;

#[doc(hidden)]
pub use admit::budget::BudgetClock;
#[cfg(feature = "log")]
pub use capture::log::LogshipLogger;
/// The log4rs appender (`kind: batch_http`) and its registration.
#[cfg(feature = "log4rs")]
pub use capture::log4rs;
pub use capture::record::{Entries, Entry, ErrorValue, EventId, Level, Record, Value, SOURCE_HINT};
#[cfg(feature = "tracing")]
pub use capture::tracing::LogshipLayer;
pub use config::did_you_mean;
/// The shape of a key's command-line flag ([`KeySpec::flag`]).
pub use config::Flag as CliFlag;
pub use config::{
    default_spill_dir, example_toml, keys, BudgetConfig, Config, ControlConfig, FollowOptions,
    Given, KeySpec, Layered, ListenOptions, ObserveConfig, Origin, Overflow, RedactAction,
    RedactionConfig, Resolved, SpanFields, Vendor,
};
pub use deliver::NetworkSummary;
pub use error::{BuildError, ConfigError, FlushTimeout};
pub use observe::health::Health;
/// Metric names, units and kinds of the `metrics` feature (see docs/metrics.md).
#[cfg(feature = "metrics")]
pub use observe::metrics;
pub use observe::reporter::DeliveryError;
pub use observe::stall::{StallAlarm, StallCallback};
pub use observe::stats::Stats;
pub use pipeline::{Builder, Guard, Logship, ShutdownReport};
pub use queue::{Offered, Rejected};
pub use spill::{
    inspect, remove_all, SegmentInfo, SpillConfig, SpillError, SpillFsync, SpillFull, SpillStats,
};
/// Kill points for the crash harness. NOT API: does nothing unless the `fault-points`
/// feature (off by default, for tests only) is on.
#[doc(hidden)]
pub use support::fault_point;
pub use support::secret::Secret;
pub use support::threads::is_logship_thread;
pub use vendors::elasticsearch::options::ElasticsearchOptions;
#[cfg(feature = "kafka-faults")]
#[doc(hidden)]
pub use vendors::kafka::faults::on_next_kafka_send;
pub use vendors::kafka::input_options::KafkaInputOptions;
pub use vendors::kafka::options::KafkaOptions;
#[cfg(feature = "kafka")]
#[doc(hidden)]
pub use vendors::kafka::refusal::{kafka_refusal, KafkaRefusal};
pub use vendors::loki::options::LokiOptions;
pub use vendors::otlp::options::{OtlpEncoding, OtlpOptions};
pub use vendors::splunk::options::SplunkOptions;

/// The `User-Agent` header logship sends (`logship/<version>`).
pub const USER_AGENT: &str = deliver::http::USER_AGENT;

/// Formats nanoseconds since the Unix epoch as RFC 3339 UTC with milliseconds
/// (`2026-11-29T21:55:57.123Z`), the timestamp format of generic intakes.
///
/// Not part of the API: public for the `logship` CLI (`spill ls`, `bench`) only.
#[doc(hidden)]
pub fn rfc3339_millis(unix_nanos: u64) -> String {
    let mut out = Vec::with_capacity(24);
    support::json::rfc3339_millis(&mut out, unix_nanos);
    String::from_utf8(out).unwrap_or_default()
}
