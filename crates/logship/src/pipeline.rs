//! The pipeline's public face: the builder, the cloneable handle, and the guard.
//!
//! Why it exists: users need one obvious way to start shipping and one obvious way to stop
//! without losing what is queued. [`Builder::build`] validates everything and starts the
//! threads; [`Logship`] is a cheap handle for log calls, `flush`, `shutdown` and `stats`;
//! [`Guard`] flushes on drop within a bounded time, so a program that returns from `main`
//! does not lose its last logs, and one whose intake is down still exits on time.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use crate::batch::thread::{self as batcher_thread, Control};
use crate::batch::Batcher;
use crate::config::{
    is_loopback_url, redact_url, Config, ElasticsearchOptions, Layered, LokiOptions, OtlpOptions,
    Overflow, SplunkOptions, Vendor,
};
use crate::error::{BuildError, ConfigError, FlushTimeout};
use crate::protocol::Codec;
use crate::queue::{Memory, Queue, Rejected};
use crate::record::Record;
use crate::reporter::{DeliveryError, ErrorCallback, Reporter};
use crate::secret::Secret;
use crate::send::backoff::Backoff;
use crate::send::concurrency::Limiter;
use crate::send::{settle, Job, Pool};
use crate::shared::Shared;
use crate::spill::{handover, startup};
use crate::stats::Counters;
use crate::stats::Stats;
use crate::sync::Signal;
use crate::tracker::Tracker;

/// Printed once per pipeline when an event is logged after it was shut down: most often the
/// guard was dropped at once (`let (layer, _) = ...` drops it; `_guard` keeps it).
const CLOSED_NOTICE: &str = "warning: an event was logged after this pipeline shut down (its Guard was dropped, or shutdown was called); it and any later ones are not shipped and are counted as dropped_closed. Keep the guard alive as long as the program logs: `let (layer, _guard) = ...`, not `let (layer, _) = ...`";

/// Longest a panic waits for a pipeline's queued events to be delivered (see
/// `panic_hook`).
const PANIC_FLUSH_TIMEOUT: Duration = Duration::from_secs(2);

/// A running pipeline. Clone it freely: all clones feed the same queue.
#[derive(Clone)]
pub struct Logship {
    inner: Arc<Inner>,
}

struct Inner {
    queue: Queue,
    control: Sender<Control>,
    shared: Arc<Shared>,
    /// The senders' concurrency limit (for stats, and to wake waiters at shutdown).
    pool: Arc<Pool>,
    shutdown_timeout: Duration,
    report: OnceLock<ShutdownReport>,
    shutting_down: Mutex<()>,
    /// The senders' hand-off channel, so that shutdown can settle batches no sender took
    /// before the spill is closed.
    jobs: crossbeam_channel::Receiver<Job>,
}

impl std::fmt::Debug for Logship {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Logship")
            .field("stats", &self.stats())
            .finish()
    }
}

/// What `shutdown` achieved.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShutdownReport {
    /// True when every accepted event was delivered: none dropped, failed, or left on disk.
    pub complete: bool,
    /// The counters at the end.
    pub stats: Stats,
    /// How long shutdown took.
    pub elapsed: Duration,
}

impl Logship {
    /// Starts configuring a pipeline.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// Hands a record to the pipeline. Never blocks (unless the opt-in `Block` overflow
    /// policy is configured) and never performs I/O; a refused record is counted.
    pub fn push(&self, record: Record) -> Result<(), Rejected> {
        let shared = &self.inner.shared;
        if shared.closed.load(Ordering::Acquire) {
            Counters::add(&shared.counters.dropped_closed, 1);
            if !shared.told_closed.swap(true, Ordering::AcqRel) {
                shared.reporter.notice(CLOSED_NOTICE);
            }
            return Err(Rejected::Closed);
        }
        self.inner
            .queue
            .push(&shared.memory, &shared.counters, record)
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> Stats {
        let shared = &self.inner.shared;
        let mut stats = shared.counters.snapshot(
            self.inner.queue.len(),
            shared.tracker.in_flight(),
            shared.spill.as_ref().map(|s| s.stats()),
            shared.health(),
        );
        stats.spill_unavailable = shared.spill_unavailable.clone();
        stats.report_write_errors = shared.reporter.write_failures();
        stats.spill_in_flight_copies = self.inner.pool.copied_records();
        let concurrency = &self.inner.pool.concurrency;
        stats.concurrency_limit = concurrency.limit() as u64;
        stats.concurrency_peak = concurrency.peak() as u64;
        stats
    }

    /// Sends everything queued before this call and waits until it is settled (delivered
    /// or given up on), at most `timeout`. Log calls may continue meanwhile.
    pub fn flush(&self, timeout: Duration) -> Result<(), FlushTimeout> {
        let deadline = Instant::now() + timeout;
        let timed_out = || FlushTimeout {
            timeout,
            pending: self.stats().pending(),
        };
        let (reply_tx, reply_rx) = crossbeam_channel::bounded(1);
        if self.inner.control.send(Control::Flush(reply_tx)).is_err() {
            // The batcher has stopped (after shutdown): wait for what is still out.
            let ok = self
                .inner
                .shared
                .tracker
                .wait_until(deadline, |s| s.idle_and_done());
            return if ok { Ok(()) } else { Err(timed_out()) };
        }
        let seq = match reply_rx.recv_deadline(deadline) {
            Ok(seq) => seq,
            Err(_) => return Err(timed_out()),
        };
        if self
            .inner
            .shared
            .tracker
            .wait_until(deadline, |s| s.settled_through(seq))
        {
            Ok(())
        } else {
            Err(timed_out())
        }
    }

    /// Stops accepting events, delivers what is queued within `timeout`, and reports on
    /// stderr anything that was dropped or not delivered. Later calls return the first
    /// call's report at once. Never hangs: when time runs out, in-flight retries stop and
    /// what is left is counted as abandoned.
    pub fn shutdown(&self, timeout: Duration) -> ShutdownReport {
        let _one_at_a_time = self.inner.shutting_down.lock();
        if let Some(report) = self.inner.report.get() {
            return report.clone();
        }
        let started = Instant::now();
        let deadline = started + timeout;
        let shared = &self.inner.shared;
        shared.closed.store(true, Ordering::Release);
        self.inner.pool.wake_watch();
        let _ = self.inner.control.send(Control::Shutdown);
        if let Some(spill) = &shared.spill {
            spill.wake(); // the replayer stops: shutdown began
        }
        // `cut_short` (a second signal) ends the wait at once.
        shared
            .tracker
            .wait_until(deadline, |s| s.idle_and_done() || shared.abort.is_raised());
        let finished = shared
            .tracker
            .wait_until(Instant::now(), |s| s.idle_and_done());
        if !finished {
            shared.abort.raise();
            self.inner.pool.concurrency.wake_all();
            // Settling what is left takes microseconds (milliseconds when it is written to
            // the spill); in-flight requests are not waited for (their threads finish on
            // their own, bounded by the request timeout).
            let grace = if shared.spill.is_some() { 500 } else { 50 };
            let grace = Instant::now() + Duration::from_millis(grace);
            // Batches waiting for a sender that is stuck in a request would otherwise be
            // settled only when it returns, after the spill is closed: settle them here
            // (spilled, or counted as abandoned), before and after the batcher stops (it
            // may hand one more over while this drains).
            let drain = || {
                while let Ok(job) = self.inner.jobs.try_recv() {
                    settle::abandon(shared, job);
                }
            };
            drain();
            shared.tracker.wait_until(grace, |s| s.batcher_done);
            drain();
            shared.tracker.wait_until(grace, |s| s.idle_and_done());
            // Batches whose request is still out (an intake that accepted it and never
            // answers) are spilled now, or counted as abandoned: never left uncounted. If
            // the request succeeds after all, the event may arrive twice (at-least-once).
            for stuck in self.inner.pool.take_in_flight() {
                settle::stuck(shared, stuck);
            }
        }
        if let Some(spill) = &shared.spill {
            // What was spilled is durable and replayable, and the directory is released
            // for the next pipeline even if a request of this one is still in flight
            // (unless a pipeline it was handed over to still uses it).
            handover::release(spill);
        }
        let stats = self.stats();
        let report = ShutdownReport {
            complete: finished
                && stats.lost() == 0
                && stats.pending() == 0
                && stats.events_spilled == 0,
            stats,
            elapsed: started.elapsed(),
        };
        if !report.complete {
            shared.reporter.notice(&describe_loss(&report));
        }
        let _ = self.inner.report.set(report.clone());
        report
    }

    /// Ends a shutdown in progress (or the next one) at once, as a second SIGTERM or
    /// Ctrl-C should: retries stop, requests in flight are no longer waited for, and what
    /// was not delivered is spilled (or counted as abandoned without spill). Returns at
    /// once; the `shutdown` call returns its report shortly after.
    pub fn cut_short(&self) {
        let shared = &self.inner.shared;
        shared.abort.raise();
        self.inner.pool.concurrency.wake_all();
        self.inner.pool.wake_watch();
        shared.tracker.poke();
    }

    /// Waits until every spilled event (from this run or an earlier one) has been
    /// replayed, at most `timeout`; returns whether the spill is empty. True at once when
    /// spill is off. The replayer works only while the intake accepts requests.
    pub fn wait_spill_drained(&self, timeout: Duration) -> bool {
        match &self.inner.shared.spill {
            Some(spill) => spill.wait_until_drained(Instant::now() + timeout),
            None => true,
        }
    }

    /// The configured shutdown timeout (what the guard's drop uses).
    pub fn shutdown_timeout(&self) -> Duration {
        self.inner.shutdown_timeout
    }

    /// A guard that shuts this pipeline down when dropped.
    pub fn guard(&self) -> Guard {
        Guard {
            logship: Some(self.clone()),
        }
    }
}

fn describe_loss(report: &ShutdownReport) -> String {
    let s = &report.stats;
    let mut parts = vec![format!("{} delivered", s.events_delivered)];
    if s.dropped_queue_full > 0 {
        parts.push(format!(
            "{} dropped because the queue was full",
            s.dropped_queue_full
        ));
    }
    if s.dropped_closed > 0 {
        parts.push(format!("{} dropped after shutdown began", s.dropped_closed));
    }
    if s.events_failed > 0 {
        parts.push(format!(
            "{} rejected or failed after retries",
            s.events_failed
        ));
    }
    let not_delivered = s.events_abandoned + s.pending();
    if not_delivered > 0 {
        parts.push(format!(
            "{not_delivered} not delivered within the shutdown timeout of {:?}",
            report.elapsed
        ));
    }
    let mut line = format!("shutdown: {}", parts.join(", "));
    if let Some(e) = &s.last_error {
        line.push_str(&format!("; last error: {e}"));
    }
    line
}

/// Flushes and stops the pipeline when dropped, within the configured shutdown timeout.
/// Keep it alive in `main` for as long as the program logs.
#[must_use = "dropping the guard shuts the pipeline down at once"]
pub struct Guard {
    logship: Option<Logship>,
}

impl Guard {
    /// The pipeline this guard stops.
    pub fn logship(&self) -> Option<&Logship> {
        self.logship.as_ref()
    }
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Guard")
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(l) = self.logship.take() {
            l.shutdown(l.shutdown_timeout());
        }
    }
}

/// Configures and starts a pipeline. Every setter names its default.
#[derive(Default)]
pub struct Builder {
    config: Config,
    on_error: Option<ErrorCallback>,
    spill_handover: bool,
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builder")
            .field("config", &self.config)
            .finish()
    }
}

impl Builder {
    /// Starts from a complete configuration.
    pub fn from_config(config: Config) -> Builder {
        Builder {
            config,
            on_error: None,
            spill_handover: false,
        }
    }

    /// The configuration so far.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Wire format (default NDJSON).
    pub fn vendor(mut self, vendor: Vendor) -> Self {
        self.config.vendor = vendor;
        self
    }

    /// The URL to POST to.
    pub fn endpoint(mut self, url: impl Into<String>) -> Self {
        self.config.endpoint = Some(url.into());
        self
    }

    /// Adds a request header; its value is treated as a secret.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<Secret>) -> Self {
        self.config.headers.push((name.into(), value.into()));
        self
    }

    /// The vendor's API key or token (default: from `DD_API_KEY`, `SPLUNK_HEC_TOKEN`,
    /// `NEW_RELIC_LICENSE_KEY` or `DT_API_TOKEN` by vendor, then `LOGSHIP_API_KEY`).
    pub fn api_key(mut self, key: impl Into<Secret>) -> Self {
        self.config.api_key = Some(key.into());
        self
    }

    /// Datadog site (default `datadoghq.com`).
    pub fn site(mut self, site: impl Into<String>) -> Self {
        self.config.site = Some(site.into());
        self
    }

    /// New Relic region: `us` (default), `eu`, `jp`, `fedramp`.
    pub fn region(mut self, region: impl Into<String>) -> Self {
        self.config.region = Some(region.into());
        self
    }

    /// Service name attached to every event (default none).
    pub fn service(mut self, service: impl Into<String>) -> Self {
        self.config.service = Some(service.into());
        self
    }

    /// Source attached to every event (default `rust`).
    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.config.source = Some(source.into());
        self
    }

    /// Host name attached to every event (default: this machine's).
    pub fn hostname(mut self, hostname: impl Into<String>) -> Self {
        self.config.hostname = Some(hostname.into());
        self
    }

    /// Adds a `key:value` tag (default none).
    pub fn tag(mut self, tag: impl Into<String>) -> Self {
        self.config.tags.push(tag.into());
        self
    }

    /// HTTP basic auth (Loki behind a gateway, Grafana Cloud: instance ID and token;
    /// Elasticsearch / OpenSearch). The password is a secret, never printed.
    pub fn basic_auth(mut self, username: impl Into<String>, password: impl Into<Secret>) -> Self {
        self.config.username = Some(username.into());
        self.config.password = Some(password.into());
        self
    }

    /// The Splunk HTTP Event Collector options, replacing any set before. Default: no
    /// index (the token's default), sourcetype `_json`, no channel.
    pub fn splunk(mut self, options: SplunkOptions) -> Self {
        self.config.splunk = options;
        self
    }

    /// The Grafana Loki options, replacing any set before. Default: no tenant, no
    /// static labels besides `service` and `level`, lines up to 256 KiB.
    pub fn loki(mut self, options: LokiOptions) -> Self {
        self.config.loki = options;
        self
    }

    /// The Elasticsearch / OpenSearch options, replacing any set before. Default: the
    /// data stream `logs-logship-default`.
    pub fn elasticsearch(mut self, options: ElasticsearchOptions) -> Self {
        self.config.elasticsearch = options;
        self
    }

    /// The OpenTelemetry OTLP/HTTP options, replacing any set before. Default: protobuf
    /// bodies.
    pub fn otlp(mut self, options: OtlpOptions) -> Self {
        self.config.otlp = options;
        self
    }

    /// Most uncompressed bytes per request where the server sets it (Splunk, default
    /// 1,000,000; Elasticsearch, default 100 MB).
    pub fn max_request_bytes(mut self, n: usize) -> Self {
        self.config.max_request_bytes = Some(n);
        self
    }

    /// Events per batch (default 200).
    pub fn max_batch_records(mut self, n: usize) -> Self {
        self.config.max_batch_records = n;
        self
    }

    /// Encoded, uncompressed bytes per batch (default 1 MiB).
    pub fn max_batch_bytes(mut self, n: usize) -> Self {
        self.config.max_batch_bytes = n;
        self
    }

    /// Age of the oldest event that forces a flush (default 1000 ms).
    pub fn linger(mut self, d: Duration) -> Self {
        self.config.linger = d;
        self
    }

    /// Events the queue holds (default 10000).
    pub fn queue_capacity(mut self, n: usize) -> Self {
        self.config.queue_capacity = n;
        self
    }

    /// Bytes of events held in memory, queued or in flight (default 64 MiB).
    pub fn queue_max_bytes(mut self, n: usize) -> Self {
        self.config.queue_max_bytes = n;
        self
    }

    /// What a log call does when the queue is full (default: drop and count).
    pub fn overflow(mut self, policy: Overflow) -> Self {
        self.config.overflow = policy;
        self
    }

    /// Most requests in flight (default 16): the ceiling of the adaptive limit, or the
    /// fixed number when adaptive concurrency is off. One sender thread each.
    pub fn max_in_flight(mut self, n: usize) -> Self {
        self.config.max_in_flight = n;
        self
    }

    /// Adapt the number of requests in flight to the intake's answers, between 1 and
    /// `max_in_flight` (default on); off, it is fixed at `max_in_flight`.
    pub fn adaptive_concurrency(mut self, on: bool) -> Self {
        self.config.adaptive_concurrency = on;
        self
    }

    /// gzip request bodies (default on).
    pub fn gzip(mut self, on: bool) -> Self {
        self.config.gzip = on;
        self
    }

    /// Retries per request (default 3).
    pub fn max_retries(mut self, n: u32) -> Self {
        self.config.max_retries = n;
        self
    }

    /// First and largest retry delay (defaults 200 ms and 10 s).
    pub fn retry_backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.config.retry_initial_backoff = initial;
        self.config.retry_max_backoff = max;
        self
    }

    /// Connect and whole-request timeouts (defaults 5 s and 30 s).
    pub fn timeouts(mut self, connect: Duration, request: Duration) -> Self {
        self.config.connect_timeout = connect;
        self.config.request_timeout = request;
        self
    }

    /// How long the guard's drop may take (default 5 s).
    pub fn shutdown_timeout(mut self, d: Duration) -> Self {
        self.config.shutdown_timeout = d;
        self
    }

    /// Largest event before truncation (default 1 MiB).
    pub fn max_event_bytes(mut self, n: usize) -> Self {
        self.config.max_event_bytes = n;
        self
    }

    /// Spill undeliverable events to disk and replay them later (default on).
    pub fn spill(mut self, on: bool) -> Self {
        self.config.spill_enabled = on;
        self
    }

    /// The spill directory (default: `~/.cache/logship/<service>`). One process at a time.
    pub fn spill_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.config.spill_dir = Some(dir.into());
        self.config.spill_enabled = true;
        self
    }

    /// Most bytes of spilled events on disk (default 1 GiB), and what happens when it is
    /// reached (default: drop the oldest segment, counted).
    pub fn spill_max_bytes(mut self, n: u64, when_full: crate::spill::SpillFull) -> Self {
        self.config.spill_max_bytes = n;
        self.config.spill_full = when_full;
        self
    }

    /// Size of one spill segment file (default 16 MiB).
    pub fn spill_segment_bytes(mut self, n: u64) -> Self {
        self.config.spill_segment_bytes = n;
        self
    }

    /// When spilled data is synced to the device (default: when a segment is closed).
    pub fn spill_fsync(mut self, policy: crate::spill::SpillFsync) -> Self {
        self.config.spill_fsync = policy;
        self
    }

    /// Print problems and the shutdown report to stderr (default on).
    pub fn report_to_stderr(mut self, on: bool) -> Self {
        self.config.report_to_stderr = on;
        self
    }

    /// Called on every delivery error (on a logship thread; keep it quick, and do not log
    /// through logship from it: such events are ignored).
    pub fn on_error(mut self, f: impl Fn(&DeliveryError) + Send + Sync + 'static) -> Self {
        self.on_error = Some(Arc::new(f));
        self
    }

    /// How long a batch's request may be out before the batch also gets an insurance copy
    /// in the spill (deleted once it settles), so that a crash or SIGKILL meanwhile cannot
    /// lose it. Default 5 s; 100 ms to 10 minutes.
    pub fn spill_in_flight_after(mut self, d: Duration) -> Self {
        self.config.spill_in_flight_after = d;
        self
    }

    /// Fails `build` when the spill directory cannot be used (held by another process,
    /// unwritable) instead of starting without spill. Default off: logging never keeps the
    /// program from starting; the pipeline says so once on stderr and in
    /// [`Stats::spill_unavailable`].
    pub fn spill_required(mut self, on: bool) -> Self {
        self.config.spill_required = on;
        self
    }

    /// On a panic anywhere in the program, delivers what is queued first (at most the
    /// shorter of the shutdown timeout and 2 s), then runs the previous panic hook. Default
    /// on; it also covers `panic = "abort"`, where no guard is ever dropped.
    pub fn flush_on_panic(mut self, on: bool) -> Self {
        self.config.flush_on_panic = on;
        self
    }

    /// Lets this pipeline share its spill directory with another pipeline of this process
    /// that allowed hand-over too, instead of failing because the directory is held
    /// (default off). The two write to and replay from one spill, and the directory is
    /// released when the last of them shuts down. Meant for configuration reloads that
    /// build the new pipeline before the old one is dropped (the log4rs appender sets it);
    /// the spill settings of whichever pipeline opened the directory first stay in force.
    pub fn spill_handover(mut self, on: bool) -> Self {
        self.spill_handover = on;
        self
    }

    /// Validates the configuration and starts the pipeline's threads.
    pub fn build(self) -> Result<(Logship, Guard), BuildError> {
        let mut config = self.config;
        config.api_key = config.resolve_api_key(|var| std::env::var(var).ok());
        config.validate()?;
        let codec = Arc::new(Codec::new(&config)?);
        let mut secret_urls: Vec<&str> = config.endpoint.iter().map(String::as_str).collect();
        secret_urls.push(codec.url());
        let redactor = crate::redact::Redactor::for_pipeline(
            codec.headers(),
            config.api_key.as_ref(),
            config.password.as_ref(),
            &secret_urls,
        );
        let reporter =
            Reporter::new(config.report_to_stderr, self.on_error).with_redactor(redactor);
        if let Some(url) = &config.endpoint {
            let has_secret =
                !config.headers.is_empty() || config.api_key.is_some() || config.password.is_some();
            if url.starts_with("http://") && !is_loopback_url(url) && has_secret {
                reporter.notice(&format!(
                    "warning: endpoint {} uses plain http to a non-loopback host; headers (and any API key) travel in clear text",
                    redact_url(url)
                ));
            }
        }
        // Opened here, on the caller's thread. A directory that cannot be used (held by
        // another process, unwritable) never stops the program: the pipeline runs without
        // spill and says so once, unless `spill_required` asks for a strict start-up.
        // Damaged data never fails the build either.
        let (spill, spill_unavailable) = match config.spill_config() {
            Some(spill_config) => {
                let started = startup::open(
                    spill_config,
                    config.spill_dir.is_none(),
                    self.spill_handover,
                    config.spill_required,
                )?;
                let unavailable = started.unavailable.map(|e| {
                    let reason = e.to_string();
                    reporter.notice(&format!(
                        "warning: running without spill: {reason}; events that cannot be delivered now are kept in memory only (set spill_required = true to fail start-up instead)"
                    ));
                    reason
                });
                (started.handle, unavailable)
            }
            None => (None, None),
        };
        let shared = Arc::new(Shared {
            counters: Default::default(),
            reporter,
            memory: Memory::new(config.queue_max_bytes),
            tracker: Tracker::new(),
            abort: Signal::new(),
            closed: Default::default(),
            spill,
            health: Default::default(),
            spill_unavailable,
            told_closed: Default::default(),
        });
        let pool = Arc::new(Pool::new(Limiter::new(
            config.max_in_flight,
            config.adaptive_concurrency,
        )));
        let (queue, records) = Queue::bounded(config.queue_capacity, config.overflow);
        let (control_tx, control_rx) = crossbeam_channel::unbounded();
        let (jobs_tx, jobs_rx) = crossbeam_channel::bounded(config.max_in_flight);
        let client = crate::send::http::Client::new(&config);
        // Live senders and the replayer differ only in how often they retry.
        let new_sender = |max_retries: u32| crate::send::Sender {
            shared: shared.clone(),
            pool: pool.clone(),
            codec: codec.clone(),
            client: client.clone(),
            gzip: config.gzip.then_some(config.gzip_level),
            max_retries,
            backoff: Backoff {
                initial: config.retry_initial_backoff,
                max: config.retry_max_backoff,
            },
        };
        // The first few sender threads; the senders start more as the concurrency limit
        // grows (all of them at once when it is fixed).
        let first = pool.concurrency.threads_wanted();
        for i in 0..first {
            crate::send::spawn_sender(new_sender(config.max_retries), jobs_rx.clone(), i).map_err(
                |source| BuildError::Spawn {
                    thread: format!("logship-sender-{i}"),
                    source,
                },
            )?;
        }
        pool.threads.store(first, Ordering::Release);
        if shared.spill.is_some() {
            // A failed replay stays on disk and is tried again later: one retry is enough.
            let replayer = new_sender(config.max_retries.min(1));
            let (queue, capacity) = (queue.clone(), config.queue_capacity);
            spawn("logship-replayer".into(), move || {
                crate::send::replayer::run(replayer, queue, capacity)
            })?;
        }
        if shared.spill.is_some() {
            let (shared, pool) = (shared.clone(), pool.clone());
            let after = config.spill_in_flight_after;
            spawn("logship-watch".into(), move || {
                crate::send::watch::run(shared, pool, after)
            })?;
        }
        let batcher = Batcher::new(codec, config.max_event_bytes);
        let linger = config.linger;
        let worker_shared = shared.clone();
        spawn("logship-batcher".into(), move || {
            batcher_thread::run(worker_shared, batcher, linger, records, control_rx, jobs_tx)
        })?;
        let logship = Logship {
            inner: Arc::new(Inner {
                queue,
                control: control_tx,
                shared,
                pool,
                shutdown_timeout: config.shutdown_timeout,
                report: OnceLock::new(),
                shutting_down: Mutex::new(()),
                jobs: jobs_rx,
            }),
        };
        if config.flush_on_panic {
            let weak = Arc::downgrade(&logship.inner);
            let bound = config.shutdown_timeout.min(PANIC_FLUSH_TIMEOUT);
            crate::panic_hook::register(Arc::new(move || match weak.upgrade() {
                Some(inner) => {
                    let _ = Logship { inner }.flush(bound);
                    true
                }
                None => false,
            }));
        }
        let guard = logship.guard();
        Ok((logship, guard))
    }
}

/// Starts one of the pipeline's threads (see `threads::spawn`).
fn spawn(name: String, f: impl FnOnce() + Send + 'static) -> Result<(), BuildError> {
    crate::threads::spawn(name.clone(), f).map_err(|source| BuildError::Spawn {
        thread: name,
        source,
    })
}

/// The builder-facing layer methods (the layering itself lives in `config`, which does
/// not know the builder).
impl Layered {
    /// Adds explicit settings, applied last (over file and environment): `f` gets a
    /// builder holding the configuration so far and returns it changed. Only its
    /// configuration is kept (not `on_error` or `spill_handover`).
    pub fn explicit(self, f: impl FnOnce(Builder) -> Builder + 'static) -> Self {
        self.explicit_config(move |config| {
            let builder = f(Builder::from_config(std::mem::take(config)));
            *config = builder.config;
        })
    }

    /// Resolves the layers into a builder, ready for more settings and `build`.
    pub fn into_builder(self) -> Result<Builder, ConfigError> {
        Ok(Builder::from_config(self.resolve()?.config))
    }
}
