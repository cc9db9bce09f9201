package dev.logship.jvm;

/**
 * The native entry points (crates/logship-jni/src/exports.rs). Only {@link Pipeline} calls
 * them, after {@link NativeLoader} loaded the library into this class's loader. Every call
 * returns at once or within the bound it is given; none throws but {@code open}.
 */
final class NativeBridge {
    private NativeBridge() {}

    /** Starts a pipeline; its handle. Throws IllegalArgumentException naming a bad attribute. */
    static native long open(String[] attributes);

    /**
     * Hands one event over, its first {@code length} bytes of the direct buffer as {@link
     * EventWriter} wrote them: 0 taken, 1 queue full, 2 closed, 3 suppressed, 4 over budget,
     * -1 failed, -2 malformed buffer.
     */
    static native int push(long handle, java.nio.ByteBuffer event, int length);

    /** Tests only: panics inside the native library, which catches it; answers -1 as push does. */
    static native int panicProbe(long handle);

    /** The counters in {@link Stats#NAMES} order, or null. */
    static native long[] stats(long handle);

    /** 0: the counters that are not zero, one per line; 1: why spill is off (or null). */
    static native String describe(long handle, int what);

    /** Sends what is queued and waits, at most {@code millis}; whether all settled. */
    static native boolean flush(long handle, long millis);

    /** Stops within {@code millis} (negative: the configured shutdownTimeoutMs); final counters. */
    static native long[] stop(long handle, long millis);

    /** The size of the hand-over ring's buffer for this pipeline (0: unknown handle). */
    static native int handOverBytes(long handle);

    /**
     * Starts the consumer of {@code ring} (zeroed, {@link #handOverBytes} long): how long a
     * producer may wait for room, in nanoseconds, or -1 when the ring was refused.
     */
    static native long attach(long handle, java.nio.ByteBuffer ring);

    /** Wakes the ring's consumer (a producer found it asleep). */
    static native void wake(long handle);
}
