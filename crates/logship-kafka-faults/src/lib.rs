//! Test-only: raises a fatal error in a librdkafka client, so the tests can prove that the
//! Kafka output rebuilds its producer after one and loses no event.
//!
//! Why it exists: an idempotent producer's fatal error (an out-of-order sequence, a fenced
//! producer id) comes from broker states a test cannot bring about on demand; librdkafka's
//! `rd_kafka_test_fatal_error` raises one exactly as the broker's would. Calling it is
//! `unsafe` (FFI), and the library forbids unsafe code, so the call lives here, in a crate
//! that is never published and that only tests depend on. The library hands the client to
//! [`raise_fatal_error`] through its `kafka-faults` hook (`logship::on_next_kafka_send`).
//! Must never: be a dependency of anything but tests.

#[cfg(feature = "kafka")]
pub use logship::on_next_kafka_send;

/// Raises a fatal error with `reason` in `client` (as librdkafka's broker-side fatal errors
/// do: every message not yet delivered fails, and so does every later one). The error
/// code is `OUT_OF_ORDER_SEQUENCE_NUMBER`, one the idempotent producer treats as fatal.
#[cfg(feature = "kafka")]
pub fn raise_fatal_error(client: &rdkafka::client::NativeClient, reason: &str) -> bool {
    use rdkafka::types::RDKafkaRespErr;
    let Ok(reason) = std::ffi::CString::new(reason) else {
        return false;
    };
    // SAFETY: `client` is a live librdkafka handle (a reference to rdkafka's own wrapper,
    // valid for this call), and `reason` a NUL-terminated string that outlives the call
    // (librdkafka copies it).
    let err = unsafe {
        rdkafka::bindings::rd_kafka_test_fatal_error(
            client.ptr(),
            RDKafkaRespErr::RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER,
            reason.as_ptr(),
        )
    };
    err == RDKafkaRespErr::RD_KAFKA_RESP_ERR_NO_ERROR
}
