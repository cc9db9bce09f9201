package dev.logship.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.logship.it.Intake;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 31 item 6: a panic inside the native library never unwinds into the JVM. The
 * library's test entry point panics under the same catch_unwind every entry point uses;
 * the call returns -1 (as push answers a panic), no Java exception or crash follows, and the
 * same pipeline keeps taking and delivering events afterwards.
 *
 * <p>And a JNI pipeline's {@code flushOnPanic} is off by default: a panic on a Java thread does
 * not make that thread flush the pipelines (a wait beyond the blocking policy). The events
 * wait for their linger (60 s here) instead; with {@code flushOnPanic="true"} the same panic
 * delivers them at once, which shows the check can see a flush.
 */
@Timeout(120)
class PanicTest {
    private static Pipeline open(Intake intake, String... more) {
        List<String> attributes = new ArrayList<>(List.of("lingerMillis", "60000"));
        attributes.addAll(List.of(more));
        return TestPipelines.open(intake, attributes.toArray(new String[0]));
    }

    @Test
    void aPanicInTheNativeLibraryIsCaughtThereAndFlushesNothingByDefault() throws Exception {
        try (Intake intake = Intake.start()) {
            Pipeline p = open(intake);
            for (int round = 0; round < 3; round++) {
                assertTrue(p.push(0, Pipeline.INFO, "x", "main", "before panic " + round,
                        null, null, new IllegalStateException("still fine")), "taken");
                assertEquals(-1, p.panicProbe(), "the panic was caught on the native side");
                Stats now = p.stats();
                assertEquals(0, now.delivered, "the panic flushed nothing: " + now);
                assertEquals(round + 1, now.enqueued, now.toString());
            }
            assertEquals(0, intake.events());
            Stats stats = p.stop(-1);
            assertEquals(3, stats.delivered, stats.toString());
            assertEquals(0, stats.lost, stats.toString());
            assertEquals(3, intake.events());
        }
    }

    @Test
    void flushOnPanicTurnedOnFlushesOnThePanic() throws Exception {
        try (Intake intake = Intake.start()) {
            Pipeline p = open(intake, "flushOnPanic", "true");
            assertTrue(p.push(0, Pipeline.INFO, "x", "main", "before panic", null, null, null));
            // The panic's flush sends what is queued; an event still in the hand-over ring
            // (its consumer queues it within a millisecond or so) would wait for the linger.
            long until = System.nanoTime() + 30_000_000_000L;
            while (p.stats().handedOver < 1 && System.nanoTime() < until) {
                Thread.sleep(1);
            }
            assertEquals(1, p.stats().handedOver, "the ring's consumer took the event");
            assertEquals(-1, p.panicProbe(), "the panic was caught on the native side");
            assertEquals(1, intake.awaitEvents(1, 30_000), "delivered by the panic, not the linger");
            Stats stats = p.stop(-1);
            assertEquals(1, stats.delivered, stats.toString());
        }
    }
}
