//! The JNI entry points of `dev.logship.jvm.NativeBridge` (java/).
//!
//! Why it exists: the only place Java calls into; each function reads its arguments,
//! calls the pipeline, and returns a plain value. Must never: let a panic unwind into the
//! JVM (each body runs under `catch_unwind`, a panic answers as "not taken"), block beyond
//! the pipeline's overflow policy (`push`: `Logship::push_at_once`, never the core's
//! back-off) or the bound Java passes (`flush`, `stop`), or
//! throw anything but `IllegalArgumentException` from `open`, or read an event buffer
//! past the length and capacity it checked.

// `#[no_mangle]` is what exports a JNI symbol; the lint counts it as unsafe. The only
// other unsafe code is the in-place read of the event buffer in `event_bytes` (its safety
// comment says why); the `jni` crate's typed handles do the rest.
#![allow(unsafe_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use jni::objects::{JByteBuffer, JClass, JObjectArray, JString};
use jni::sys::{jboolean, jint, jlong, jlongArray, jstring, JNI_FALSE, JNI_TRUE};
use jni::JNIEnv;
use logship::Rejected;

use crate::handover::{HandOver, Ring, TRAILER};
use crate::slots::Slot;
use crate::{config, slots, stats, wire};

/// `push` answers: taken, or why not (Java counts each).
const TAKEN: jint = 0;
const QUEUE_FULL: jint = 1;
const CLOSED: jint = 2;
const SUPPRESSED: jint = 3;
const OVER_BUDGET: jint = 4;
/// An unknown handle, or a panic inside logship (never expected): not taken.
const FAILED: jint = -1;
/// The event buffer did not parse (`wire::Malformed`): not taken.
const MALFORMED: jint = -2;

/// The strings of a Java `String[]` (empty for null).
fn strings(env: &mut JNIEnv<'_>, array: &JObjectArray<'_>) -> Vec<String> {
    if array.is_null() {
        return Vec::new();
    }
    let n = env.get_array_length(array).unwrap_or(0).max(0);
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        let Ok(item) = env.get_object_array_element(array, i) else {
            break;
        };
        let item = JString::from(item);
        out.push(env.get_string(&item).map(String::from).unwrap_or_default());
        let _ = env.delete_local_ref(item);
    }
    out
}

/// `[k0, v0, k1, v1, ...]` as pairs (an odd last key is dropped).
fn pairs(items: Vec<String>) -> Vec<(String, String)> {
    let mut it = items.into_iter();
    let mut out = Vec::new();
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        out.push((k, v));
    }
    out
}

fn long_array(env: &mut JNIEnv<'_>, values: &[i64]) -> jlongArray {
    let Ok(len) = i32::try_from(values.len()) else {
        return std::ptr::null_mut();
    };
    match env.new_long_array(len) {
        Ok(array) => {
            if env.set_long_array_region(&array, 0, values).is_err() {
                return std::ptr::null_mut();
            }
            array.into_raw()
        }
        Err(_) => std::ptr::null_mut(),
    }
}

/// `static native long open(String[] pairs)`: starts a pipeline; its handle, or 0 with
/// an `IllegalArgumentException` naming the attribute and the fix.
#[no_mangle]
pub extern "system" fn Java_dev_logship_jvm_NativeBridge_open<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    attributes: JObjectArray<'l>,
) -> jlong {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let given = pairs(strings(&mut env, &attributes));
        match config::open(given) {
            Ok(slot) => slots::insert(slot).ok_or_else(|| {
                format!(
                    "logship: more than {} pipelines started in this process; \
                     restart the JVM or reconfigure less often",
                    slots::MAX_PIPELINES
                )
            }),
            Err(e) => Err(format!("logship: {e}")),
        }
    }));
    let message = match result {
        Ok(Ok(handle)) => return handle,
        Ok(Err(message)) => message,
        Err(_) => "logship: the pipeline could not start (a panic in logship, please report it)"
            .to_owned(),
    };
    let _ = env.throw_new("java/lang/IllegalArgumentException", message);
    0
}

/// `static native int push(long handle, ByteBuffer event, int length)`: hands one event
/// over, as `EventWriter` encoded it into the calling thread's direct buffer (layout:
/// `wire`). A buffer that does not parse is refused (`MALFORMED`), never read past
/// `length` or its capacity.
#[no_mangle]
pub extern "system" fn Java_dev_logship_jvm_NativeBridge_push<'l>(
    env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    event: JByteBuffer<'l>,
    length: jint,
) -> jint {
    catch_unwind(AssertUnwindSafe(|| {
        let Some(logship) = slots::get(handle) else {
            return FAILED;
        };
        // While the queue is known to be full, refuse before reading the event: the
        // call costs the application's thread almost nothing (counted as queue full; a
        // burst limit that would have held it back is not consulted).
        if logship.shed_at_once() {
            return QUEUE_FULL;
        }
        let Some(bytes) = event_bytes(&env, &event, length) else {
            return MALFORMED;
        };
        let Ok(event) = wire::parse(bytes) else {
            return MALFORMED;
        };
        // Never waits beyond the configured policy (issue 31 item 6): no back-off.
        match logship.push_at_once(event.record()) {
            Ok(()) => TAKEN,
            Err(Rejected::QueueFull) => QUEUE_FULL,
            Err(Rejected::Closed) => CLOSED,
            Err(Rejected::Suppressed) => SUPPRESSED,
            Err(Rejected::OverBudget) => OVER_BUDGET,
            Err(_) => FAILED,
        }
    }))
    .unwrap_or(FAILED)
}

/// The first `length` bytes of a direct `ByteBuffer`, read in place; `None` for a null or
/// non-direct buffer or a length outside `0..=capacity`.
fn event_bytes<'b>(
    env: &JNIEnv<'_>,
    buffer: &'b JByteBuffer<'_>,
    length: jint,
) -> Option<&'b [u8]> {
    if buffer.is_null() {
        return None;
    }
    let length = usize::try_from(length).ok()?;
    let capacity = env.get_direct_buffer_capacity(buffer).ok()?;
    if length > capacity {
        return None;
    }
    // Checked non-null (the `jni` crate answers an error for a null address, i.e. a
    // buffer that is not direct).
    let address = env.get_direct_buffer_address(buffer).ok()?;
    // SAFETY: `address` is the start of the direct buffer's memory, `capacity` bytes long
    // (both from the JVM), and `length <= capacity`. The memory lives as long as the
    // buffer object, which the local reference `buffer` keeps reachable for this whole
    // native call, and the returned slice borrows `buffer` so it cannot outlive the
    // call. Nothing writes it meanwhile: the buffer belongs to the calling thread
    // (`EventWriter` keeps one per thread) and that thread is inside this call. Bytes
    // are plain `u8`, valid for any value.
    Some(unsafe { std::slice::from_raw_parts(address, length) })
}

/// `static native int panicProbe(long handle)`: for tests only (JUnit's `PanicTest`; the
/// appenders never call it). Looks the pipeline up as `push` does, then panics inside
/// logship under the same `catch_unwind` every entry point runs in, and answers as `push`
/// answers a panic: `FAILED`. It proves, in the library the jar ships, that a panic is
/// caught on the Rust side and never unwinds into the JVM. Must never: panic outside its
/// `catch_unwind`.
#[no_mangle]
pub extern "system" fn Java_dev_logship_jvm_NativeBridge_panicProbe<'l>(
    _env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jint {
    catch_unwind(|| {
        let pipeline = slots::get(handle).is_some();
        std::panic::panic_any(format!("logship: panicProbe (pipeline found: {pipeline})"))
    })
    .unwrap_or(FAILED)
}

/// `static native long[] stats(long handle)`: the counters in `Stats`' order (null for an
/// unknown handle).
#[no_mangle]
pub extern "system" fn Java_dev_logship_jvm_NativeBridge_stats<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlongArray {
    let numbers = catch_unwind(|| slots::slot(handle).map(|s| slot_numbers(s, &s.logship.stats())));
    match numbers {
        Ok(Some(n)) => long_array(&mut env, &n),
        _ => std::ptr::null_mut(),
    }
}

/// `static native String describe(long handle, int what)`: 0 the counters that are not
/// zero, one per line; 1 why spill is off although enabled (null when it is not).
#[no_mangle]
pub extern "system" fn Java_dev_logship_jvm_NativeBridge_describe<'l>(
    env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    what: jint,
) -> jstring {
    let text = catch_unwind(|| {
        let slot = slots::slot(handle)?;
        let stats = slot.logship.stats();
        match what {
            0 => {
                let mut text = stats.to_string();
                if let Some(broken) = handover(slot).and_then(HandOver::broken) {
                    text.push_str(&format!("\nhand-over ring closed early: {broken}"));
                }
                Some(text)
            }
            _ => stats.spill_unavailable,
        }
    });
    match text {
        Ok(Some(t)) => env
            .new_string(t)
            .map(|s| s.into_raw())
            .unwrap_or(std::ptr::null_mut()),
        _ => std::ptr::null_mut(),
    }
}

/// `static native boolean flush(long handle, long millis)`: sends what is queued and
/// waits until it is settled, at most `millis`; whether it all settled in time.
#[no_mangle]
pub extern "system" fn Java_dev_logship_jvm_NativeBridge_flush<'l>(
    _env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    millis: jlong,
) -> jboolean {
    let ok = catch_unwind(|| {
        let slot = slots::slot(handle)?;
        let started = Instant::now();
        let limit = bound(millis);
        let drained = handover(slot).is_none_or(|h| h.drain(started + limit));
        let rest = limit.saturating_sub(started.elapsed());
        Some(drained && slot.logship.flush(rest).is_ok())
    });
    if matches!(ok, Ok(Some(true))) {
        JNI_TRUE
    } else {
        JNI_FALSE
    }
}

/// `static native long[] stop(long handle, long millis)`: stops taking events, delivers
/// (or spills) what is queued within `millis` (negative: the configured
/// `shutdown_timeout_ms`), and returns the final counters. A second
/// call returns the first one's counters at once.
#[no_mangle]
pub extern "system" fn Java_dev_logship_jvm_NativeBridge_stop<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    millis: jlong,
) -> jlongArray {
    let numbers = catch_unwind(|| {
        let slot = slots::slot(handle)?;
        let logship = &slot.logship;
        let limit = if millis < 0 {
            logship.shutdown_timeout()
        } else {
            bound(millis)
        };
        let started = Instant::now();
        // The ring first: what producers published before it closed goes to the queue,
        // which the shutdown then delivers or spills in the time left.
        if let Some(h) = handover(slot) {
            if h.close(started + limit) {
                // The consumer has ended: the Java buffer may go.
                if let Ok(mut keep) = slot.ring_buffer.lock() {
                    keep.take();
                }
            }
        }
        let report = logship.shutdown(limit.saturating_sub(started.elapsed()));
        Some(slot_numbers(slot, &report.stats))
    });
    match numbers {
        Ok(Some(n)) => long_array(&mut env, &n),
        _ => std::ptr::null_mut(),
    }
}

/// Java's milliseconds as a bound (negative: none, i.e. zero).
fn bound(millis: jlong) -> Duration {
    Duration::from_millis(u64::try_from(millis).unwrap_or(0))
}

/// The slot's ring consumer, when Java attached a ring.
fn handover(slot: &Slot) -> Option<&HandOver> {
    slot.handover.get().map(|h| &**h)
}

/// The counters of `stats` with the ring's own: events given up at a stop are dropped
/// (closed) and lost, malformed records lost.
fn slot_numbers(slot: &Slot, stats: &logship::Stats) -> [i64; 13] {
    let (events, abandoned, malformed) =
        handover(slot).map_or((0, 0, 0), |h| (h.events(), h.abandoned(), h.malformed()));
    stats::numbers_with(stats, events, abandoned, malformed)
}

/// `static native int handOverBytes(long handle)`: the size of the direct buffer Java
/// allocates for this pipeline's hand-over ring (records and trailer); 0 for an unknown
/// handle.
#[no_mangle]
pub extern "system" fn Java_dev_logship_jvm_NativeBridge_handOverBytes<'l>(
    _env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jint {
    catch_unwind(|| {
        slots::slot(handle)
            .and_then(|s| jint::try_from(s.ring_capacity + TRAILER).ok())
            .unwrap_or(0)
    })
    .unwrap_or(0)
}

/// `static native long attach(long handle, ByteBuffer ring)`: starts the consumer of the
/// ring Java allocated (zeroed, `handOverBytes` long); how long a producer may wait for
/// room, in nanoseconds (0: not at all), or -1 when the ring was refused (wrong size or
/// alignment, attached already, no thread): Java then hands every event over directly.
#[no_mangle]
pub extern "system" fn Java_dev_logship_jvm_NativeBridge_attach<'l>(
    env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    buffer: JByteBuffer<'l>,
) -> jlong {
    catch_unwind(AssertUnwindSafe(|| {
        let slot = slots::slot(handle)?;
        if slot.handover.get().is_some() || buffer.is_null() {
            return None;
        }
        let len = env.get_direct_buffer_capacity(&buffer).ok()?;
        if len != slot.ring_capacity + TRAILER {
            return None;
        }
        let address = env.get_direct_buffer_address(&buffer).ok()?;
        let keep = env.new_global_ref(&buffer).ok()?;
        // SAFETY: `address` is the start of the direct buffer's `len` bytes (both from the
        // JVM). The global reference, held in the slot until the consumer has ended (the
        // stop releases it only then), keeps the buffer and its memory alive for as long
        // as the ring is read. Java writes it only through `HandOver`, in this layout.
        let ring = unsafe { Ring::new(address, len) }?;
        *slot.ring_buffer.lock().ok()? = Some(keep);
        let started = HandOver::start(ring, &slot.logship)?;
        slot.handover.set(started).ok()?;
        Some(i64::try_from(slot.block.as_nanos()).unwrap_or(i64::MAX))
    }))
    .ok()
    .flatten()
    .unwrap_or(-1)
}

/// `static native void wake(long handle)`: a producer published into a ring whose
/// consumer sleeps.
#[no_mangle]
pub extern "system" fn Java_dev_logship_jvm_NativeBridge_wake<'l>(
    _env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    let _ = catch_unwind(|| {
        if let Some(h) = slots::slot(handle).and_then(handover) {
            h.wake();
        }
    });
}
