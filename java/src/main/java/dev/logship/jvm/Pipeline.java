package dev.logship.jvm;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One appender's pipeline in the Rust core, or the record of why it has none.
 *
 * <p>Why it exists: both appenders (Log4j2, Logback) start, feed, read and stop a pipeline
 * the same way. Must never throw from {@link #push}, {@link #stats}, {@link #flush} or
 * {@link #stop}, block a logging thread beyond the configured overflow policy, or drop an
 * event without counting it: an event that finds no pipeline is counted as not taken.
 */
public final class Pipeline {
    /** Level numbers the native side reads. */
    public static final int TRACE = 0, DEBUG = 1, INFO = 2, WARN = 3, ERROR = 4;

    private static final String[] NONE = new String[0];

    private final long handle;
    private final String failure;
    /** The hand-over ring (null: every event goes with one native call). */
    private final HandOver ring;
    private final AtomicLong notTaken = new AtomicLong();
    /** Events the ring refused because it stayed full (queue full: dropped and lost). */
    private final LongAdder ringFull = new LongAdder();
    /** Events the ring took (those its consumer has not taken yet are queued and pending). */
    private final LongAdder ringTaken = new LongAdder();
    private volatile Stats last;

    private Pipeline(long handle, String failure) {
        this.handle = handle;
        this.failure = failure;
        this.ring = handle == 0 ? null : HandOver.attach(handle);
    }

    /**
     * Starts a pipeline from attribute name, value pairs. When the native library cannot be
     * loaded, returns a pipeline that takes nothing (and counts it): {@link #failure()} says
     * why, for the appender to say once.
     *
     * @throws IllegalArgumentException when an attribute is unknown or invalid (the message
     *     names it and the fix)
     */
    public static Pipeline open(List<String> attributes) {
        if (!NativeLoader.load()) {
            return new Pipeline(0, NativeLoader.failure());
        }
        long handle;
        try {
            handle = NativeBridge.open(attributes.toArray(NONE));
        } catch (UnsatisfiedLinkError e) {
            return new Pipeline(0, "logship: the native library does not match this jar (" + e.getMessage() + ")");
        }
        return new Pipeline(handle, null);
    }

    /** Why this pipeline takes no events (no native library), or null when it runs. */
    public String failure() {
        return failure;
    }

    /** Why spill is off although enabled (an unwritable directory, ...), or null. */
    public String spillUnavailable() {
        return handle == 0 ? null : NativeBridge.describe(handle, 1);
    }

    /**
     * Whether an event logged now is refused at once because the hand-over ring is full (and
     * {@code blockTimeoutMs} is unset); when it is, the drop is counted here ({@code
     * droppedQueueFull}, {@code lost}) and the appender skips formatting and encoding the event,
     * so an overloaded application spends no more on an event it cannot ship. Never throws.
     */
    public boolean refusedAtOnce() {
        if (ring != null && ring.refusesNow()) {
            ringFull.increment();
            return true;
        }
        return false;
    }

    /**
     * Hands one event over, written into this thread's buffer ({@link EventWriter}) and copied
     * into the hand-over ring ({@link HandOver}), or passed in one native call when the ring
     * cannot take it (too large, closed, none); whether it was taken. Never throws; an event
     * not taken is counted (by the pipeline, or here: a full ring, no pipeline, an event over
     * 1 GiB, a buffer the native side refused).
     */
    public boolean push(long nanos, int level, String logger, String thread, String message,
            String[] context, String[] markers, Throwable thrown) {
        if (handle == 0) {
            notTaken.incrementAndGet();
            return false;
        }
        try {
            String kind = null, msg = null, causes = null, trace = null;
            if (thrown != null) {
                kind = Throwables.kind(thrown);
                msg = Throwables.message(thrown);
                causes = Throwables.causes(thrown);
                trace = Throwables.trace(thrown);
            }
            ByteBuffer event;
            try {
                event = EventWriter.write(nanos, level, logger, thread, message,
                        context, markers, kind, msg, causes, trace);
            } catch (OutOfMemoryError e) {
                event = null;
            }
            if (event == null) {
                notTaken.incrementAndGet();
                return false;
            }
            if (ring != null) {
                int offered = ring.offer(event);
                if (offered == HandOver.TAKEN) {
                    ringTaken.increment();
                    return true;
                }
                if (offered == HandOver.FULL) {
                    ringFull.increment();
                    return false;
                }
            }
            int r = NativeBridge.push(handle, event, event.position());
            if (r < 0) {
                notTaken.incrementAndGet();
            }
            return r == 0;
        } catch (RuntimeException | LinkageError e) {
            notTaken.incrementAndGet();
            return false;
        }
    }

    /**
     * Tests only ({@code PanicTest}): makes the native library panic inside this pipeline's
     * entry point and returns its answer (-1: the panic was caught on the native side).
     */
    int panicProbe() {
        return NativeBridge.panicProbe(handle);
    }

    /** The counters now (the final ones after {@link #stop}). */
    public Stats stats() {
        Stats done = last;
        if (done != null) {
            return new Stats(numbers(done), notTaken.get());
        }
        return new Stats(handle == 0 ? null : withRing(NativeBridge.stats(handle)), notTaken.get());
    }

    /**
     * The native counters with the ring's: the events it refused (queue full, so lost), and
     * those it took that its consumer has not yet (queued and pending, as they would be in
     * the native queue).
     */
    private long[] withRing(long[] n) {
        if (n == null || n.length < Stats.NAMES.length) {
            return n;
        }
        long full = ringFull.sum();
        n[6] += full;
        n[11] += full;
        long inRing = Math.max(0, ringTaken.sum() - n[12]);
        n[0] += inRing;
        n[10] += inRing;
        return n;
    }

    /** The native counters that are not zero, one per line (empty without a pipeline). */
    public String describe() {
        String s = handle == 0 ? null : NativeBridge.describe(handle, 0);
        return s == null ? "" : s;
    }

    /** Sends what is queued and waits at most {@code millis}; whether everything settled. */
    public boolean flush(long millis) {
        return handle == 0 || NativeBridge.flush(handle, millis);
    }

    /**
     * Stops taking events and delivers (or spills) what is queued within {@code millis}
     * (negative: the configured {@code shutdownTimeoutMs}, 5 s by default); the final counters.
     */
    public Stats stop(long millis) {
        if (handle != 0 && last == null) {
            last = new Stats(withRing(NativeBridge.stop(handle, millis)), 0);
        }
        return stats();
    }

    private static long[] numbers(Stats s) {
        return new long[] {
            s.enqueued, s.delivered, s.spilled, s.replayed, s.failed, s.abandoned,
            s.droppedQueueFull, s.droppedClosed, s.suppressed, s.spillDropped, s.pending, s.lost,
            s.handedOver,
        };
    }
}
