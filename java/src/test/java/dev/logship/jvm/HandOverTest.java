package dev.logship.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.logship.it.Intake;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hand-over ring ({@link HandOver}, crates/logship-jni/src/handover): logging threads copy
 * events into shared memory and a native thread queues them. Every event a thread hands over
 * arrives exactly once, whole, however often the ring wraps and however many threads write at
 * once; a full ring refuses at once (the default policy) and each refusal is counted.
 */
@Timeout(300)
class HandOverTest {
    private static final int THREADS = 8, EACH = 4000;

    private static Pipeline open(Intake intake, String... more) {
        List<String> attributes = new ArrayList<>(List.of("vendor", "ndjson", "site", intake.url,
                "spillEnabled", "false"));
        attributes.addAll(List.of(more));
        Pipeline p = Pipeline.open(attributes);
        assertNull(p.failure(), "the native library loaded");
        return p;
    }

    /** The event with this id: its marker, then filler of a length that varies with it. */
    private static String message(int id) {
        StringBuilder b = new StringBuilder("hand=").append(id).append(' ');
        // Every 997th event is larger than a quarter of the ring: it goes the direct way.
        int filler = id % 997 == 0 ? 20_000 : (id * 37) % 2_000;
        for (int i = 0; i < filler; i++) {
            b.append((char) ('a' + (id + i) % 26));
        }
        return b.toString();
    }

    @Test
    void manyThreadsHandOverEveryEventExactlyOnceAcrossManyWraps() throws Exception {
        Path ids = Files.createTempFile("logship-handover", ".ids");
        try (Intake intake = Intake.start("--count-only", "--record-ids", ids.toString(),
                "--id-marker", "hand=")) {
            // queueCapacity 500: the smallest ring (64 KiB), which 32,000 events of up to 2 KiB
            // wrap hundreds of times, and fill; blockTimeoutMs: producers wait for room then.
            Pipeline p = open(intake, "queueCapacity", "500", "blockTimeoutMs", "60000");
            AtomicLong refused = new AtomicLong();
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int first = t * EACH;
                Thread w = new Thread(() -> {
                    for (int i = 0; i < EACH; i++) {
                        if (!p.push(0, Pipeline.INFO, "hand", "w", message(first + i), null, null, null)) {
                            refused.incrementAndGet();
                        }
                    }
                });
                writers.add(w);
                w.start();
            }
            for (Thread w : writers) {
                w.join();
            }
            assertEquals(0, refused.get(), "a producer was refused although it may wait");
            assertTrue(!p.refusedAtOnce(), "with blockTimeoutMs a call waits, never refused early");
            assertTrue(p.flush(120_000), "everything settled: " + p.stats());
            Stats s = p.stop(-1);
            long n = (long) THREADS * EACH;
            assertEquals(n, s.enqueued, s.toString());
            assertEquals(n, s.handedOver + n / 997 + 1, "all but the large ones went through the ring: " + s.handedOver);
            assertEquals(n, s.delivered, s.toString());
            assertEquals(0, s.lost, s.toString());
            assertTrue(intake.stop(), "the intake exited");
            ByteBuffer got = ByteBuffer.wrap(Files.readAllBytes(ids)).order(ByteOrder.LITTLE_ENDIAN);
            BitSet seen = new BitSet();
            long count = 0;
            while (got.remaining() >= 8) {
                int id = (int) (got.getLong() & 0x00ff_ffff_ffff_ffffL);
                assertTrue(id >= 0 && id < n, "an id no thread sent: " + id);
                assertTrue(!seen.get(id), "id " + id + " arrived twice");
                seen.set(id);
                count++;
            }
            assertEquals(n, count, "every id arrived once");
        } finally {
            Files.deleteIfExists(ids);
        }
    }

    @Test
    void aFullRingRefusesAtOnceAndEveryRefusalIsCounted() throws Exception {
        // An intake that never answers: the queue fills, then the ring; with the default policy
        // (no blockTimeoutMs) a refused call returns at once (a wait would hang this test).
        try (Intake intake = Intake.start("--misbehave", "never-answer")) {
            Pipeline p = open(intake, "queueCapacity", "500");
            long n = 100_000, taken = 0;
            for (int i = 0; i < n; i++) {
                if (p.push(0, Pipeline.INFO, "full", "main", message(i % 996 + 1), null, null, null)) {
                    taken++;
                }
            }
            long refused = n - taken;
            assertTrue(refused > n / 2, "the ring filled: " + refused + " refused");
            // Still full (nothing leaves): the appenders' check before formatting refuses too,
            // and counts it.
            assertTrue(p.refusedAtOnce(), "a full ring refuses before encoding");
            refused++;
            Stats s = p.stop(500);
            assertEquals(refused, s.droppedQueueFull, s.toString());
            // What the ring took was queued, or given up at the stop's deadline (closed).
            assertEquals(taken, s.enqueued + s.droppedClosed, s.toString());
            assertEquals(0, s.delivered, s.toString());
            assertTrue(s.lost >= refused + s.droppedClosed, s.toString());
        }
    }
}
