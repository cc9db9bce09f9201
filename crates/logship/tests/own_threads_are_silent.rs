//! What happens on logship's own threads stays there: tracing events emitted on them (the
//! HTTP client's debug records once `tracing-log` bridges them, an `on_error` callback's
//! own events) never reach the application's subscriber, so `RUST_LOG=debug` does not
//! flood the application's console with logship's requests.
//!
//! Its own binary: it installs a global subscriber.

use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use logship::{Logship, Record};
use logship_intake::{Intake, IntakeConfig};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::prelude::*;

/// Records the target of every event it sees.
struct Recorder(Arc<Mutex<Vec<String>>>);

impl<S: tracing::Subscriber> Layer<S> for Recorder {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        self.0
            .lock()
            .unwrap()
            .push(event.metadata().target().to_owned());
    }
}

#[test]
fn events_emitted_on_logship_threads_never_reach_the_applications_subscriber() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    tracing_subscriber::registry()
        .with(Recorder(Arc::clone(&seen)))
        .init();
    // An intake that refuses every request, so the error callback runs (on a sender).
    let intake = Intake::start(IntakeConfig {
        api_key: Some("right".into()),
        ..IntakeConfig::default()
    })
    .expect("start intake");
    let (called, on_call) = mpsc::sync_channel::<()>(64);
    let (logship, _guard) = Logship::builder()
        .vendor(logship::Vendor::Datadog)
        .api_key("wrong")
        .endpoint(intake.url(""))
        .spill(false)
        .report_to_stderr(false)
        .linger(Duration::from_millis(10))
        .on_error(move |_| {
            tracing::warn!(target: "from_logship_thread", "the callback logged");
            let _ = called.try_send(());
        })
        .build()
        .unwrap();
    logship
        .push(Record::new(logship::Level::Info, "app"))
        .unwrap();
    on_call
        .recv_timeout(Duration::from_secs(30))
        .expect("the error callback ran");
    tracing::info!(target: "from_the_application", "the application logged");
    let seen = seen.lock().unwrap().clone();
    assert!(
        seen.iter().any(|t| t == "from_the_application"),
        "the application's own events arrive: {seen:?}"
    );
    assert!(
        !seen.iter().any(|t| t == "from_logship_thread"),
        "nothing emitted on a logship thread reaches the application's subscriber: {seen:?}"
    );
}
