package dev.logship.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.logship.it.Intake;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 31 item 6: a panic inside the native library never unwinds into the JVM. The
 * library's test entry point panics under the same catch_unwind every entry point uses;
 * the call returns -1 (as push answers a panic), no Java exception or crash follows, and the
 * same pipeline keeps taking and delivering events afterwards.
 */
@Timeout(120)
class PanicTest {
    @Test
    void aPanicInTheNativeLibraryIsCaughtThereAndThePipelineRunsOn() throws Exception {
        try (Intake intake = Intake.start()) {
            Pipeline p = Pipeline.open(List.of("vendor", "datadog", "site", intake.url,
                    "apiKey", "k", "spillEnabled", "false", "lingerMillis", "20",
                    "flushOnPanic", "false"));
            assertNull(p.failure(), "the native library loaded");
            for (int round = 0; round < 3; round++) {
                assertEquals(-1, p.panicProbe(), "the panic was caught on the native side");
                assertTrue(p.push(0, Pipeline.INFO, "x", "main", "after panic " + round,
                        null, null, new IllegalStateException("still fine")), "taken");
            }
            Stats stats = p.stop(-1);
            assertEquals(3, stats.delivered, stats.toString());
            assertEquals(0, stats.lost, stats.toString());
            assertEquals(3, intake.events());
        }
    }
}
