package dev.logship.jvm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Writes one event into a direct buffer in the layout the native library reads in place
 * (crates/logship-jni/src/wire.rs), so that an event crosses JNI in one call with one copy
 * of its bytes instead of one modified-UTF-8 conversion per field.
 *
 * <p>Why it exists: converting each field with JNI's string functions was the largest part
 * of a logging call's cost. Each thread keeps its own buffer, reused while events fit in
 * {@link #KEEP} bytes; a larger event gets a buffer of its own, which is dropped after the
 * call. The thread-local value is a plain JDK {@code ByteBuffer}, so that a container's
 * pooled threads hold nothing of this jar's class loader after an undeploy. Must never:
 * throw into a logging call (an event over {@link #MAX} bytes is refused, the caller counts
 * it), or share a buffer between threads (the native side reads it while its thread waits
 * in the call).
 *
 * <p>Layout (little-endian; {@code str} is an {@code int} byte length then UTF-8 bytes):
 * version, level, flags (1: a throwable follows), 0; {@code long} nanos; logger, thread,
 * message; {@code int} n and n key, value pairs; {@code int} m and m markers; when flagged:
 * kind, message, causes, trace. {@code String.getBytes(UTF_8)} writes a lone surrogate as
 * {@code ?}.
 */
final class EventWriter {
    /** The layout's version (wire.rs VERSION). */
    static final byte VERSION = 1;
    /** The largest buffer a thread keeps between events (bytes). */
    static final int KEEP = 64 * 1024;
    /** The largest event written (bytes); a larger one is refused and counted. */
    static final int MAX = 1 << 30;

    private static final ThreadLocal<ByteBuffer> BUFFERS = new ThreadLocal<>();
    private static final byte[][] NO_BYTES = new byte[0][];

    private EventWriter() {}

    /**
     * Writes the event; the buffer holding it from position 0 to {@code position()}, or null
     * when it is over {@link #MAX} bytes or no buffer could be had.
     */
    static ByteBuffer write(long nanos, int level, String logger, String thread, String message,
            String[] context, String[] markers, String kind, String errorMessage, String causes,
            String trace) {
        byte[] l = utf8(logger), t = utf8(thread), m = utf8(message);
        byte[][] ctx = utf8(context);
        byte[][] mk = utf8(markers);
        boolean thrown = kind != null;
        byte[] k = null, em = null, c = null, tr = null;
        long size = 4 + 8 + len(l) + len(t) + len(m) + 4 + (ctx.length / 2) * 2L * 4 + 4;
        for (int i = 0; i + 1 < ctx.length; i += 2) {
            size += ctx[i].length + (long) ctx[i + 1].length;
        }
        for (byte[] b : mk) {
            size += len(b);
        }
        if (thrown) {
            k = utf8(kind);
            em = utf8(errorMessage);
            c = utf8(causes);
            tr = utf8(trace);
            size += len(k) + len(em) + len(c) + len(tr);
        }
        if (size > MAX) {
            return null;
        }
        ByteBuffer b = BUFFERS.get();
        if (b == null || size > b.capacity()) {
            long grown = Math.max(Math.max(size, 1024), b == null ? 0 : 2L * b.capacity());
            b = allocate(size > KEEP ? (int) size : (int) Math.min(grown, KEEP));
            if (b == null) {
                return null;
            }
            if (size <= KEEP) {
                BUFFERS.set(b);
            }
        }
        b.clear();
        b.put(VERSION).put((byte) level).put((byte) (thrown ? 1 : 0)).put((byte) 0);
        b.putLong(nanos);
        put(b, l);
        put(b, t);
        put(b, m);
        b.putInt(ctx.length / 2);
        for (int i = 0; i + 1 < ctx.length; i += 2) {
            put(b, ctx[i]);
            put(b, ctx[i + 1]);
        }
        b.putInt(mk.length);
        for (byte[] x : mk) {
            put(b, x);
        }
        if (thrown) {
            put(b, k);
            put(b, em);
            put(b, c);
            put(b, tr);
        }
        return b;
    }

    private static ByteBuffer allocate(int capacity) {
        try {
            return ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
        } catch (OutOfMemoryError e) {
            return null;
        }
    }

    private static long len(byte[] b) {
        return 4L + b.length;
    }

    private static void put(ByteBuffer b, byte[] bytes) {
        b.putInt(bytes.length);
        b.put(bytes);
    }

    private static final byte[] EMPTY = new byte[0];

    private static byte[] utf8(String s) {
        return s == null || s.isEmpty() ? EMPTY : s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[][] utf8(String[] items) {
        if (items == null || items.length == 0) {
            return NO_BYTES;
        }
        byte[][] out = new byte[items.length][];
        for (int i = 0; i < items.length; i++) {
            out[i] = utf8(items[i]);
        }
        return out;
    }
}
