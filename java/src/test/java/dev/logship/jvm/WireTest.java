package dev.logship.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.logship.it.Intake;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The one-buffer hand-over across JNI (EventWriter, wire.rs): what Java writes arrives whole,
 * including text that is not plain ASCII, lone surrogates and events larger than the buffer a
 * thread keeps; and a buffer the native side cannot parse is refused (-2) and counted, never
 * read past its length, and the pipeline runs on.
 */
@Timeout(120)
class WireTest {
    private static Pipeline open(Intake intake) {
        return TestPipelines.open(intake, "lingerMillis", "20");
    }

    @Test
    void unicodeLoneSurrogatesAndLargeEventsArriveWhole() throws Exception {
        try (Intake intake = Intake.start()) {
            Pipeline p = open(intake);
            assertTrue(p.push(0, Pipeline.WARN, "wire.logger", "wire-thread",
                    "ünïcödé 🚀 lone:\uD800: end", new String[] {"user", "ädä", "odd"},
                    new String[] {"AUDIT"}, new IllegalStateException("bäd \uDC00 state")));
            char[] big = new char[200_000];
            Arrays.fill(big, 'x');
            big[big.length - 1] = 'Z';
            assertTrue(p.push(0, Pipeline.INFO, "wire.logger", "wire-thread", new String(big),
                    null, null, null), "an event over EventWriter.KEEP");
            assertTrue(p.push(0, Pipeline.INFO, "wire.logger", "wire-thread", "small after big",
                    null, null, null));
            Stats stats = p.stop(-1);
            assertEquals(3, stats.delivered, stats.toString());
            assertEquals(0, stats.notTaken, stats.toString());
            String events = intake.recent();
            assertTrue(events.contains("ünïcödé 🚀 lone:?: end"), events);
            assertTrue(events.contains("\"user\":\"ädä\""), events);
            assertTrue(events.contains("AUDIT"), events);
            assertTrue(events.contains("bäd ? state"), events);
            assertTrue(events.contains("java.lang.IllegalStateException"), events);
            assertTrue(events.contains("wire-thread"), events);
            assertTrue(events.contains("x".repeat(1000) + "Z"), "the large message, whole");
            assertTrue(events.contains("small after big"), events);
        }
    }

    @Test
    void aBufferThatDoesNotParseIsRefusedAndThePipelineRunsOn() throws Exception {
        try (Intake intake = Intake.start()) {
            Pipeline p = open(intake);
            ByteBuffer good = ByteBuffer.allocateDirect(256).order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer written = EventWriter.write(0, Pipeline.INFO, "l", "t", "raw event", null, null,
                    null, null, null, null);
            int n = written.position();
            written.flip();
            good.put(written);
            long handle = handleOf(p);
            assertEquals(0, NativeBridge.push(handle, good, n), "the well-formed buffer");
            for (int cut = 0; cut < n; cut++) {
                assertEquals(-2, NativeBridge.push(handle, good, cut), "cut at " + cut);
            }
            assertEquals(-2, NativeBridge.push(handle, good, 257), "longer than the buffer");
            assertEquals(-2, NativeBridge.push(handle, good, -1), "negative length");
            assertEquals(-2, NativeBridge.push(handle, null, 0), "null buffer");
            ByteBuffer heap = ByteBuffer.allocate(n);
            assertEquals(-2, NativeBridge.push(handle, heap, 0), "not a direct buffer");
            ByteBuffer garbage = ByteBuffer.allocateDirect(64);
            for (int i = 0; i < 64; i++) {
                garbage.put(i, (byte) 0xFF);
            }
            garbage.put(0, EventWriter.VERSION);
            assertEquals(-2, NativeBridge.push(handle, garbage, 64), "huge lengths");
            assertTrue(p.push(0, Pipeline.INFO, "l", "t", "still fine", null, null, null));
            Stats stats = p.stop(-1);
            assertEquals(2, stats.delivered, stats.toString());
            assertEquals(2, intake.events());
        }
    }

    private static long handleOf(Pipeline p) throws ReflectiveOperationException {
        java.lang.reflect.Field f = Pipeline.class.getDeclaredField("handle");
        f.setAccessible(true);
        return f.getLong(p);
    }
}
