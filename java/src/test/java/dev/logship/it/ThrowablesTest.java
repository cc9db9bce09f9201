package dev.logship.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.logship.jvm.Throwables;
import org.junit.jupiter.api.Test;

/** How a throwable is described; needs neither the native library nor the intake. */
class ThrowablesTest {
    @Test
    void aThrowableGivesItsClassMessageCausesAndWholeTrace() {
        Exception root = new java.io.IOException("disk full");
        Exception top = new IllegalStateException("save failed", root);
        top.addSuppressed(new RuntimeException("close failed"));
        assertEquals("java.lang.IllegalStateException", Throwables.kind(top));
        assertEquals("save failed", Throwables.message(top));
        assertEquals("java.io.IOException: disk full", Throwables.causes(top));
        String trace = Throwables.trace(top);
        assertTrue(trace.startsWith("java.lang.IllegalStateException: save failed\n\tat "), trace);
        assertTrue(trace.contains("\tSuppressed: java.lang.RuntimeException: close failed"), trace);
        assertTrue(trace.contains("Caused by: java.io.IOException: disk full"), trace);
    }

    @Test
    void aCauseCycleEnds() {
        Exception b = new Exception("b");
        Exception c = new Exception("c", b);
        b.initCause(c);
        Exception a = new Exception("a", b);
        assertEquals(32, Throwables.causes(a).split("\n").length);
        assertTrue(Throwables.trace(a).contains("CIRCULAR REFERENCE"));
    }
}
