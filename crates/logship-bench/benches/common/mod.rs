//! Set-up shared by `log_call.rs` and `latency.rs`: the 150-byte message, the pipelines
//! under test, per-thread call counting, and how each pipeline reports its drops.
//!
//! Every pipeline here is started fresh for one benchmark (one mode, one pipeline, one
//! thread count) and finished right after it, so its counters describe that run alone.
//! logship always ships to a real [`Intake`] on 127.0.0.1 (gzip, HTTP keep-alive, default
//! configuration); the peers' sinks do nothing, which favours them.

// Used only by the instruction-count benches; the others include `common` too.
#[allow(dead_code)]
pub mod counted;

use std::cell::{Cell, RefCell};
use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use logship::{Guard, Level, Logship, Record};
use logship_intake::{Intake, IntakeConfig};
use opentelemetry_appender_tracing::layer::OpenTelemetryTracingBridge;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::logs::{BatchLogProcessor, LogBatch, LogExporter, SdkLoggerProvider};
use tracing::dispatcher::DefaultGuard;
use tracing::Dispatch;
use tracing_subscriber::layer::SubscriberExt;

/// The message every log call carries: exactly 150 bytes of ASCII.
pub const MSG150: &str =
    "order 4711 checked out: 3 items, total 149.90 EUR, paid by card via acme-pay in 182 ms; \
label queued for warehouse fra-2, priority normal, ETA 2 days.";
const _: () = assert!(MSG150.len() == 150);

/// Thread counts measured (divan's `threads` in `log_call.rs`, spawned threads in `latency.rs`).
pub const THREADS: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];

/// The `appender`-mode call: build an owned record with the message and hand it to the
/// queue. Returns whether the pipeline accepted it.
#[inline]
pub fn logship_record_call(logship: &Logship) -> bool {
    let mut record = Record::new(Level::Info, "bench");
    record.message(MSG150);
    logship.push(record).is_ok()
}

/// The `end2end`-mode call: one `tracing` event with three fields and the message,
/// through whatever dispatcher is current on this thread.
#[inline]
pub fn tracing_call() {
    let msg150 = MSG150;
    tracing::info!(a = 1u64, b = "two", c = 3.0, "{msg150}");
}

// ---------------------------------------------------------------------------------------
// Thread-local dispatchers (one per end2end pipeline)
// ---------------------------------------------------------------------------------------

static NEXT_DISPATCH_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static INSTALLED_ID: Cell<u64> = const { Cell::new(0) };
    static INSTALLED_GUARD: RefCell<Option<DefaultGuard>> = const { RefCell::new(None) };
}

/// A dispatcher installed as the thread default on first use by each thread, and kept
/// there until a different one is used: divan reuses its threads across benchmarks, and
/// installing per call would clone the `Dispatch` (a shared reference count) every time.
/// The per-call cost is one thread-local compare.
pub struct ThreadDispatch {
    id: u64,
    dispatch: Dispatch,
}

impl ThreadDispatch {
    pub fn new(dispatch: Dispatch) -> ThreadDispatch {
        ThreadDispatch {
            id: NEXT_DISPATCH_ID.fetch_add(1, Relaxed),
            dispatch,
        }
    }

    /// Makes this dispatcher the current thread's default (a no-op when it already is).
    #[inline]
    pub fn ensure_current(&self) {
        if INSTALLED_ID.get() != self.id {
            self.install();
        }
    }

    #[cold]
    fn install(&self) {
        INSTALLED_GUARD.with_borrow_mut(|slot| {
            *slot = None;
            *slot = Some(tracing::dispatcher::set_default(&self.dispatch));
        });
        INSTALLED_ID.set(self.id);
    }
}

// ---------------------------------------------------------------------------------------
// Outcome: what each run reports besides timings
// ---------------------------------------------------------------------------------------

/// Calls, drops and deliveries of one run.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub calls: u64,
    /// Calls refused by the pipeline (its own counter, or derived: see `note`).
    pub dropped: u64,
    /// Events that reached the sink (the intake, the writer, the exporter) after shutdown.
    pub delivered: u64,
    /// Where `dropped` comes from.
    pub source: &'static str,
}

impl Outcome {
    pub fn dropped_pct(&self) -> f64 {
        if self.calls == 0 {
            0.0
        } else {
            100.0 * self.dropped as f64 / self.calls as f64
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} | {} | {:.2} % | {} | {}",
            self.calls,
            self.dropped,
            self.dropped_pct(),
            self.delivered,
            self.source
        )
    }
}

const SHUTDOWN: Duration = Duration::from_secs(10);

/// The discarding server the peers are measured against: it decodes each body and counts
/// its lines, checking nothing (the strict checks would cost more CPU than the shipper, on
/// the same two cores).
fn start_intake() -> Intake {
    Intake::start(IntakeConfig {
        keep_events: false,
        count_only: true,
        ..Default::default()
    })
    .expect("start the local intake on 127.0.0.1")
}

// ---------------------------------------------------------------------------------------
// appender mode
// ---------------------------------------------------------------------------------------

/// logship with its default configuration (10,000-record queue, drop when full),
/// shipping to a local intake; records are pushed directly.
pub struct LogshipAppender {
    pub logship: Logship,
    guard: Guard,
    intake: Intake,
}

impl LogshipAppender {
    pub fn start() -> LogshipAppender {
        let intake = start_intake();
        let (logship, guard) = Logship::builder()
            .endpoint(intake.url("/logs"))
            .report_to_stderr(false)
            .shutdown_timeout(SHUTDOWN)
            // A saturating benchmark must not leave a backlog on disk for a later run.
            .spill(false)
            .build()
            .expect("valid logship configuration");
        LogshipAppender {
            logship,
            guard,
            intake,
        }
    }

    #[inline]
    pub fn call(&self) -> bool {
        logship_record_call(&self.logship)
    }

    pub fn finish(self) -> Outcome {
        finish_logship(&self.logship, self.guard, &self.intake)
    }
}

fn finish_logship(logship: &Logship, guard: Guard, intake: &Intake) -> Outcome {
    let before = logship.stats();
    drop(guard); // shuts down, delivering what is queued
    Outcome {
        calls: before.enqueued + before.dropped(),
        dropped: before.dropped(),
        delivered: intake.stats().events,
        source: "logship stats().dropped_queue_full",
    }
}

/// The floor: a 150-byte `Vec` sent with crossbeam's `try_send` into a bounded channel of
/// the same capacity as logship's queue, drained by one thread that drops what it gets.
/// The drain polls (every 200 µs when the channel is empty) instead of blocking in `recv`,
/// so a send never has to wake a parked receiver (a futex call): what is measured is an
/// allocation plus a channel push, nothing else.
pub struct CrossbeamFloor {
    tx: crossbeam_channel::Sender<Vec<u8>>,
    drain: JoinHandle<u64>,
}

impl CrossbeamFloor {
    pub fn start() -> CrossbeamFloor {
        let (tx, rx) = crossbeam_channel::bounded::<Vec<u8>>(10_000);
        let drain = std::thread::spawn(move || {
            let mut received = 0;
            loop {
                match rx.try_recv() {
                    Ok(message) => {
                        drop(message);
                        received += 1;
                    }
                    Err(crossbeam_channel::TryRecvError::Empty) => {
                        std::thread::sleep(Duration::from_micros(200))
                    }
                    Err(crossbeam_channel::TryRecvError::Disconnected) => return received,
                }
            }
        });
        CrossbeamFloor { tx, drain }
    }

    #[inline]
    pub fn call(&self) -> bool {
        self.tx.try_send(MSG150.as_bytes().to_vec()).is_ok()
    }

    /// `calls` must be counted by the caller (the channel counts nothing).
    pub fn finish(self, calls: u64) -> Outcome {
        drop(self.tx);
        let delivered = self.drain.join().expect("drain thread");
        Outcome {
            calls,
            dropped: calls - delivered,
            delivered,
            source: "derived: calls - received",
        }
    }
}

// ---------------------------------------------------------------------------------------
// end2end mode: `tracing::info!` through a subscriber
// ---------------------------------------------------------------------------------------

/// Which pipeline an end2end run goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// `Registry` + `LogshipLayer`, shipping to a local intake.
    Logship,
    /// `Registry` + `fmt::layer().json()` writing to tracing-appender's `non_blocking`
    /// (default: lossy, 128,000 buffered lines) over `io::sink()`.
    TracingAppender,
    /// `Registry` + `OpenTelemetryTracingBridge` over an `SdkLoggerProvider` with a
    /// default `BatchLogProcessor` (2,048-record queue) and a no-op exporter.
    OpenTelemetry,
}

impl Peer {
    pub fn name(self) -> &'static str {
        match self {
            Peer::Logship => "logship",
            Peer::TracingAppender => "tracing-appender (json)",
            Peer::OpenTelemetry => "opentelemetry (batch)",
        }
    }
}

/// One end2end pipeline: its dispatcher and what is needed to finish it.
pub struct End2End {
    pub dispatch: ThreadDispatch,
    kind: Kind,
}

enum Kind {
    Logship {
        logship: Logship,
        guard: Guard,
        intake: Intake,
    },
    TracingAppender {
        errors: tracing_appender::non_blocking::ErrorCounter,
        written: Arc<AtomicU64>,
        guard: tracing_appender::non_blocking::WorkerGuard,
    },
    OpenTelemetry {
        provider: SdkLoggerProvider,
        exported: Arc<AtomicU64>,
    },
}

impl End2End {
    pub fn start(peer: Peer) -> End2End {
        let registry = tracing_subscriber::registry();
        let (dispatch, kind) = match peer {
            Peer::Logship => {
                let intake = start_intake();
                let (layer, guard) = Logship::builder()
                    .endpoint(intake.url("/logs"))
                    .report_to_stderr(false)
                    .shutdown_timeout(SHUTDOWN)
                    .spill(false)
                    .build_layer()
                    .expect("valid logship configuration");
                let logship = layer.logship().clone();
                (
                    Dispatch::new(registry.with(layer)),
                    Kind::Logship {
                        logship,
                        guard,
                        intake,
                    },
                )
            }
            Peer::TracingAppender => {
                let sink = CountingSink::default();
                let written = sink.lines.clone();
                let (writer, guard) = tracing_appender::non_blocking(sink);
                let errors = writer.error_counter();
                let layer = tracing_subscriber::fmt::layer().json().with_writer(writer);
                (
                    Dispatch::new(registry.with(layer)),
                    Kind::TracingAppender {
                        errors,
                        written,
                        guard,
                    },
                )
            }
            Peer::OpenTelemetry => {
                let exporter = NoopExporter::default();
                let exported = exporter.exported.clone();
                let provider = SdkLoggerProvider::builder()
                    .with_log_processor(BatchLogProcessor::builder(exporter).build())
                    .build();
                let layer = OpenTelemetryTracingBridge::new(&provider);
                (
                    Dispatch::new(registry.with(layer)),
                    Kind::OpenTelemetry { provider, exported },
                )
            }
        };
        End2End {
            dispatch: ThreadDispatch::new(dispatch),
            kind,
        }
    }

    /// One log call through this pipeline (installing its dispatcher on first use).
    #[inline]
    pub fn call(&self) {
        self.dispatch.ensure_current();
        tracing_call();
    }

    /// Events the sink has counted so far (the run is still going).
    #[allow(dead_code)] // only `overload.rs` uses it
    pub fn delivered_now(&self) -> u64 {
        match &self.kind {
            Kind::Logship { logship, .. } => logship.stats().events_delivered,
            Kind::TracingAppender { written, .. } => written.load(Relaxed),
            Kind::OpenTelemetry { exported, .. } => exported.load(Relaxed),
        }
    }

    /// Shuts the pipeline down (flushing it) and reports. `calls` must be counted by the
    /// caller: only logship counts its own calls.
    pub fn finish(self, calls: u64) -> Outcome {
        match self.kind {
            Kind::Logship {
                logship,
                guard,
                intake,
            } => finish_logship(&logship, guard, &intake),
            Kind::TracingAppender {
                errors,
                written,
                guard,
            } => {
                drop(guard); // flushes the buffered lines (bounded by 1 s)
                Outcome {
                    calls,
                    dropped: errors.dropped_lines() as u64,
                    delivered: written.load(Relaxed),
                    source: "NonBlocking::error_counter()",
                }
            }
            Kind::OpenTelemetry { provider, exported } => {
                let _ = provider.shutdown_with_timeout(SHUTDOWN); // exports what is queued
                let delivered = exported.load(Relaxed);
                Outcome {
                    calls,
                    dropped: calls.saturating_sub(delivered),
                    delivered,
                    source: "not exposed; derived: calls - exported",
                }
            }
        }
    }
}

/// `io::sink()` that counts the lines it swallows (on the writer's worker thread).
#[derive(Default)]
struct CountingSink {
    lines: Arc<AtomicU64>,
}

impl Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let lines = buf.iter().filter(|&&b| b == b'\n').count() as u64;
        self.lines.fetch_add(lines, Relaxed);
        io::sink().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An OpenTelemetry exporter that discards every batch, counting its records.
#[derive(Debug, Default)]
pub struct NoopExporter {
    exported: Arc<AtomicU64>,
}

impl LogExporter for NoopExporter {
    fn export(
        &self,
        batch: LogBatch<'_>,
    ) -> impl std::future::Future<Output = OTelSdkResult> + Send {
        self.exported
            .fetch_add(batch.iter().count() as u64, Relaxed);
        std::future::ready(Ok(()))
    }
}
