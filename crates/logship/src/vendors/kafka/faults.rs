//! NOT API: a hook that hands the next batch's librdkafka client to a test, so the test can
//! raise a fatal error in it (feature `kafka-faults`, off by default).
//!
//! Why it exists: the producer's rebuild after a fatal error must be tested, and only
//! librdkafka's `rd_kafka_test_fatal_error` raises one on demand. That call is unsafe, and
//! this crate forbids unsafe code, so the test-only crate `logship-kafka-faults` makes it
//! with the client handed over here. Must never: be compiled into a release (the feature is
//! for tests), or hold the client past the call.

use std::sync::Mutex;

use rdkafka::client::NativeClient;

/// What runs on the next batch's client, once.
type Hook = Box<dyn FnOnce(&NativeClient) + Send>;

static NEXT: Mutex<Option<Hook>> = Mutex::new(None);

/// Runs `hook` on the producer's client once the next batch was handed to it, before its
/// delivery reports are awaited. NOT API: for the tests of `logship-kafka-faults` only.
#[doc(hidden)]
pub fn on_next_kafka_send(hook: impl FnOnce(&NativeClient) + Send + 'static) {
    *NEXT.lock().unwrap_or_else(|e| e.into_inner()) = Some(Box::new(hook));
}

/// Runs the hook set, if any, on `client`.
pub(crate) fn before_wait(client: &NativeClient) {
    let hook = NEXT.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(hook) = hook {
        hook(client);
    }
}
