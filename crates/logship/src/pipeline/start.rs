//! Starting a pipeline: [`Builder::build`] validates the configuration, opens the spill,
//! and starts the batcher, sender, replayer and watch threads.
//!
//! Why it exists: start-up is where a logging library most easily takes its program down.
//! Everything here degrades instead (a held or unwritable spill directory, a thread that
//! will not start is an error, never a panic) and says once what it did.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};

use super::shared::Shared;
use super::tracker::Tracker;
use crate::batch::thread::{self as batcher_thread};
use crate::batch::Batcher;
use crate::config::{is_loopback_url, redact_url};
use crate::deliver::acks::{self, Acks};
use crate::deliver::backoff::Backoff;
use crate::deliver::concurrency::Limiter;
use crate::deliver::http::Client;
use crate::deliver::network::{Network, VERIFY_OFF_WARNING};
use crate::deliver::pool::Pool;
use crate::deliver::sender::Sender;
use crate::deliver::thread::{spawn_sender, SenderThread};
use crate::deliver::{replayer, watch};
use crate::error::BuildError;
use crate::observe::reporter::Reporter;
use crate::observe::scrub::Scrubber;
use crate::queue::{Memory, Queue};
use crate::spill::startup;
use crate::support::sync::Signal;
use crate::vendors::codec::Codec;

use super::{Builder, Guard, Inner, Logship, PANIC_FLUSH_TIMEOUT};

impl Builder {
    /// Validates the configuration and starts the pipeline's threads.
    pub fn build(self) -> Result<(Logship, Guard), BuildError> {
        let mut config = self.config;
        config.api_key = config.resolve_api_key(|var| std::env::var(var).ok());
        config.validate()?;
        // Compiled once, here (user regexes included), never on the caller's thread.
        let redaction = crate::admit::redaction::Redaction::new(&config.redaction)?.map(Arc::new);
        let codec = Arc::new(Codec::new(&config)?);
        // Certificates and the proxy are read here, so a bad file fails the build.
        let network = Network::load(&config, codec.url(), &|k| std::env::var(k).ok())?;
        let mut secret_urls: Vec<&str> = config.endpoint.iter().map(String::as_str).collect();
        secret_urls.push(codec.url());
        let scrubber = Scrubber::for_pipeline(
            codec.headers(),
            config.api_key.as_ref(),
            config.password.as_ref(),
            &secret_urls,
            &network.secrets(),
        );
        let reporter =
            Reporter::new(config.report_to_stderr, self.on_error).with_scrubber(scrubber);
        if !config.tls_verify {
            reporter.notice(VERIFY_OFF_WARNING);
        }
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
        let budget = config.budget.is_enabled().then(|| {
            let file = config.budget.state_file.clone().or_else(|| {
                spill
                    .as_ref()
                    .and_then(|s| s.dir())
                    .map(|d| d.join(crate::admit::budget::STATE_FILE))
            });
            let clock = self
                .budget_clock
                .clone()
                .unwrap_or_else(crate::admit::budget::system_clock);
            crate::admit::budget::Budget::start(config.budget.clone(), file, clock, &reporter)
        });
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
            redaction,
            control: crate::admit::control::Control::new(&config.control),
            budget,
            stalled: Default::default(),
            outage: Default::default(),
        });
        // A vendor whose wire is not HTTP brings its own client (started here, so bad
        // settings fail the build).
        let transport = crate::vendors::Transport::new(&config)?.map(Arc::new);
        // Adaptive concurrency learns from HTTP answers (429s, round trips); a transport's
        // sends never feed it, so its limit would stay at its start (2: three senders, each
        // waiting for its batch's delivery reports, held a message broker's output at 80 k
        // events/s, docs/performance.md). A transport's client paces itself (its own
        // queue): fixed at `max_in_flight`.
        let pool = Arc::new(Pool::new(Limiter::new(
            config.max_in_flight,
            config.adaptive_concurrency && transport.is_none(),
        )));
        // Acknowledgements after acceptance, when the intake confirms storage later.
        let acks = codec.ack().map(|endpoint| Arc::new(Acks::new(endpoint)));
        let (queue, records) = Queue::bounded(config.queue_capacity, config.overflow);
        let (commands_tx, commands_rx) = crossbeam_channel::unbounded();
        let (jobs_tx, jobs_rx) = crossbeam_channel::bounded(config.max_in_flight);
        let client = Client::new(&config, &network);
        // Live senders and the replayer differ only in how often they retry.
        let new_sender = |max_retries: u32| Sender {
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
            awaits_ack: acks.is_some(),
            transport: transport.clone(),
        };
        // The first few sender threads; the senders start more as the concurrency limit
        // grows (all of them at once when it is fixed).
        let first = pool.concurrency.threads_wanted();
        for i in 0..first {
            let thread = SenderThread {
                sender: new_sender(config.max_retries),
                acks: acks.clone(),
            };
            spawn_sender(thread, jobs_rx.clone(), i).map_err(|source| BuildError::Spawn {
                thread: format!("logship-sender-{i}"),
                source,
            })?;
        }
        pool.threads.store(first, Ordering::Release);
        if shared.spill.is_some() {
            // A failed replay stays on disk and is tried again later: one retry is enough.
            let replayer = new_sender(config.max_retries.min(1));
            let (queue, capacity, acks) = (queue.clone(), config.queue_capacity, acks.clone());
            spawn("logship-replayer".into(), move || {
                replayer::run(replayer, acks, queue, capacity)
            })?;
        }
        if let Some(acks) = acks.clone() {
            let poller = new_sender(config.max_retries);
            spawn("logship-acks".into(), move || acks::run(acks, poller))?;
        }
        if shared.spill.is_some() {
            let (shared, pool) = (shared.clone(), pool.clone());
            let after = config.spill_in_flight_after;
            spawn("logship-watch".into(), move || {
                watch::run(shared, pool, after)
            })?;
        }
        let batcher = Batcher::new(codec, config.max_event_bytes);
        let linger = config.linger;
        let worker_shared = shared.clone();
        spawn("logship-batcher".into(), move || {
            batcher_thread::run(
                worker_shared,
                batcher,
                linger,
                records,
                commands_rx,
                jobs_tx,
            )
        })?;
        let logship = Logship {
            inner: Arc::new(Inner {
                queue,
                commands: commands_tx,
                shared,
                pool,
                acks,
                shutdown_timeout: config.shutdown_timeout,
                report: OnceLock::new(),
                shutting_down: Mutex::new(()),
                jobs: jobs_rx,
                tls_verify_disabled: !config.tls_verify,
            }),
        };
        if config.flush_on_panic {
            let weak = Arc::downgrade(&logship.inner);
            let bound = config.shutdown_timeout.min(PANIC_FLUSH_TIMEOUT);
            crate::capture::panic_hook::register(Arc::new(move || match weak.upgrade() {
                Some(inner) => {
                    let _ = Logship { inner }.flush(bound);
                    true
                }
                None => false,
            }));
        }
        start_observer(&logship, &config, self.on_stall)?;
        let guard = logship.guard();
        Ok((logship, guard))
    }
}

/// Starts the observer thread (budget windows and state, stall alarm, metrics) when
/// anything needs it. It holds the pipeline weakly, so it never keeps it alive.
fn start_observer(
    logship: &Logship,
    config: &crate::Config,
    on_stall: Option<crate::StallCallback>,
) -> Result<(), BuildError> {
    let (stats_of, notices_of) = (
        Arc::downgrade(&logship.inner),
        Arc::downgrade(&logship.inner),
    );
    let observer = crate::observe::observer::Observer {
        shared: logship.inner.shared.clone(),
        stats: Box::new(move || stats_of.upgrade().map(|inner| Logship { inner }.stats())),
        ship_notices: Box::new(move || {
            if let Some(inner) = notices_of.upgrade() {
                Logship { inner }.ship_notices();
            }
        }),
        stall_after: config.observe.stall_after,
        on_stall,
        metrics_interval: cfg!(feature = "metrics").then_some(config.observe.metrics_interval),
    };
    if observer.is_needed() {
        spawn("logship-observer".into(), move || observer.run())?;
    }
    Ok(())
}

/// Starts one of the pipeline's threads (see `support::threads::spawn`).
fn spawn(name: String, f: impl FnOnce() + Send + 'static) -> Result<(), BuildError> {
    crate::support::threads::spawn(name.clone(), f).map_err(|source| BuildError::Spawn {
        thread: name,
        source,
    })
}
