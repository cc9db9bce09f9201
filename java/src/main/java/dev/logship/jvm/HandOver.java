package dev.logship.jvm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.locks.LockSupport;

/**
 * The producers' side of the hand-over ring (the native side: crates/logship-jni/src/handover):
 * a logging thread copies its encoded event into one direct buffer shared with a native
 * thread of the pipeline, and returns. No native call per event.
 *
 * <p>Why it exists: crossing JNI and building the record on the logging thread cost about
 * three times what the encoding itself did. Here the call claims room with one
 * compare-and-set on the tail, copies the event and publishes its header; the native
 * consumer builds and queues the record on its own thread. Must never: wait beyond the
 * configured policy (a full ring refuses at once, or waits at most {@code blockTimeoutMs}),
 * write outside the bytes it claimed, publish a header before its bytes, or throw.
 *
 * <p>Layout (little-endian): {@code capacity} bytes of records (a power of two), then three
 * 128-byte lines: tail ({@code long}, bytes ever claimed; bit 63 once closed), head ({@code
 * long}, bytes ever consumed), sleep word ({@code int}, 1 while the consumer waits to be
 * woken). A record is 8-aligned: {@code int} total length (a multiple of 8, written last),
 * {@code int} payload length (-1: padding to the end of the area), then the payload
 * ({@link EventWriter}'s layout).
 */
final class HandOver {
    /** {@link #offer} answers. */
    static final int TAKEN = 0, FULL = 1, DIRECT = 2;

    private static final int HEADER = 8, LINE = 128, TRAILER = 3 * LINE, PADDING = -1;
    private static final long CLOSED = Long.MIN_VALUE;
    /** Free bytes below which {@link #refusesNow} calls the ring full (a small event's size). */
    private static final int NEARLY_FULL = 256;
    private static final VarHandle LONGS =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS =
            MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final long handle;
    private final ByteBuffer ring;
    private final int capacity;
    private final int tailAt, headAt, sleepAt;
    /** The largest record the ring takes; a larger event goes the direct way. */
    private final int largest;
    private final long blockNanos;

    private HandOver(long handle, ByteBuffer ring, long blockNanos) {
        this.handle = handle;
        this.ring = ring;
        this.capacity = ring.capacity() - TRAILER;
        this.tailAt = capacity;
        this.headAt = capacity + LINE;
        this.sleepAt = capacity + 2 * LINE;
        this.largest = capacity / 4;
        this.blockNanos = blockNanos;
    }

    /**
     * The ring of the pipeline behind {@code handle}, attached to its native consumer; null when
     * there is none (the native side refused it, or no memory): every event then goes the
     * direct way.
     */
    static HandOver attach(long handle) {
        try {
            int bytes = NativeBridge.handOverBytes(handle);
            if (bytes <= TRAILER) {
                return null;
            }
            ByteBuffer ring = ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
            if (ring.alignmentOffset(0, 8) != 0) {
                return null; // atomic access needs 8-byte alignment (malloc gives 16)
            }
            long block = NativeBridge.attach(handle, ring);
            return block < 0 ? null : new HandOver(handle, ring, block);
        } catch (OutOfMemoryError | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * Hands over the event {@code event} holds from 0 to its position: {@link #TAKEN}, {@link
     * #FULL} (the ring stayed full for the configured wait: the caller counts the drop), or
     * {@link #DIRECT} (too large for the ring, or the ring is closed: the caller hands it over
     * with one native call, which takes it or counts why not).
     */
    int offer(ByteBuffer event) {
        int length = event.position();
        int total = (HEADER + length + 7) & ~7;
        if (total > largest) {
            return DIRECT;
        }
        long deadline = 0;
        for (;;) {
            long tail = (long) LONGS.getVolatile(ring, tailAt);
            if (tail < 0) {
                return DIRECT;
            }
            int at = (int) (tail & (capacity - 1));
            int toEnd = capacity - at;
            int need = total <= toEnd ? total : toEnd + total;
            long head = (long) LONGS.getAcquire(ring, headAt);
            if (tail + need - head > capacity) {
                if (blockNanos <= 0) {
                    return FULL;
                }
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + blockNanos;
                } else if (now - deadline >= 0) {
                    return FULL;
                }
                wakeIfAsleep();
                LockSupport.parkNanos(50_000);
                continue;
            }
            if (!LONGS.compareAndSet(ring, tailAt, tail, tail + need)) {
                continue;
            }
            if (need != total) {
                INTS.set(ring, at + 4, PADDING);
                INTS.setRelease(ring, at, toEnd);
                at = 0;
            }
            ByteBuffer to = ring.duplicate();
            to.position(at + HEADER);
            event.flip();
            to.put(event);
            INTS.set(ring, at + 4, length);
            // Volatile: the header is visible before the sleep word is read (the consumer
            // sets the word, then looks at this header once more before it sleeps).
            INTS.setVolatile(ring, at, total);
            wakeIfAsleep();
            return TAKEN;
        }
    }

    /**
     * Whether an event offered now would be refused because the ring is full and the policy is
     * not to wait ({@code blockTimeoutMs} unset): the caller may then count the drop without
     * formatting or encoding the event. Less than {@link #NEARLY_FULL} bytes free counts as
     * full (the consumer gives room back an eighth of the ring at a time, so a full ring stays
     * full until then). A stale read errs either way by one event; {@link #offer} decides for
     * those it lets through.
     */
    boolean refusesNow() {
        if (blockNanos > 0) {
            return false;
        }
        long tail = (long) LONGS.getAcquire(ring, tailAt);
        long head = (long) LONGS.getAcquire(ring, headAt);
        return tail >= 0 && capacity - (tail - head) < NEARLY_FULL;
    }

    private void wakeIfAsleep() {
        if ((int) INTS.getVolatile(ring, sleepAt) != 0) {
            NativeBridge.wake(handle);
        }
    }
}
