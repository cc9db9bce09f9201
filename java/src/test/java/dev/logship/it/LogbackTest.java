package dev.logship.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import dev.logship.logback.LogshipAppender;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.MDC;
import org.slf4j.MarkerFactory;

/** The Logback appender end to end, configured by a logback.xml with bean properties. */
@Timeout(60)
class LogbackTest {
    /** A Logback context configured by a logback.xml whose one appender, "out", has these properties. */
    private static LoggerContext context(String properties) throws Exception {
        Path xml = Configs.write("logback.xml", "<configuration>\n"
                + "  <appender name=\"out\" class=\"dev.logship.logback.LogshipAppender\">\n"
                + properties
                + "  </appender>\n  <root level=\"DEBUG\"><appender-ref ref=\"out\"/></root>\n"
                + "</configuration>\n");
        LoggerContext ctx = new LoggerContext();
        ctx.setMDCAdapter(MDC.getMDCAdapter());
        JoranConfigurator jc = new JoranConfigurator();
        jc.setContext(ctx);
        jc.doConfigure(xml.toFile());
        return ctx;
    }

    private static LogshipAppender appender(LoggerContext ctx) {
        return (LogshipAppender) ctx.getLogger("ROOT").getAppender("out");
    }

    @Test
    void logbackEventsReachTheIntakeWithMdcKeyValuesMarkersAndErrors() throws Exception {
        try (Intake intake = Intake.start("--keep-events")) {
            LoggerContext ctx = context("    <vendor>datadog</vendor>\n    <site>" + intake.url + "</site>\n"
                    + "    <apiKey>k</apiKey>\n    <service>billing</service>\n"
                    + "    <spillEnabled>false</spillEnabled>\n    <lingerMillis>50</lingerMillis>\n");
            LogshipAppender appender = appender(ctx);
            Logger log = ctx.getLogger("com.example.Billing");
            MDC.put("invoice", "INV-7");
            for (int i = 0; i < 100; i++) {
                log.atInfo().addMarker(MarkerFactory.getMarker("BILLING")).addKeyValue("attempt", i)
                        .log("charged {}", i);
            }
            MDC.clear();
            log.error("charge failed", new IllegalStateException("card declined", new java.io.IOException("timeout")));
            ctx.stop();
            assertEquals(101, appender.getStats().delivered,
                    appender.getStats() + " " + ctx.getStatusManager().getCopyOfStatusList());
            assertEquals(101, intake.events());
            String recent = intake.recent();
            assertTrue(recent.contains("\"message\":\"charged 99\""), recent.substring(0, 300));
            assertTrue(recent.contains("\"invoice\":\"INV-7\""), "MDC");
            assertTrue(recent.contains("\"attempt\":\"99\""), "key-value pairs");
            assertTrue(recent.contains("\"markers\":[\"BILLING\"]"), "markers");
            assertTrue(recent.contains("\"ddsource\":\"java\""));
            assertTrue(recent.contains("\"error.kind\":\"java.lang.IllegalStateException\""), recent);
            assertTrue(recent.contains("Caused by: java.io.IOException: timeout"), recent);
        }
    }
    @Test
    void anOverloadedAppenderCountsEveryDropWithoutFormattingWhatItDrops() throws Exception {
        // An intake that never answers: the queue fills, then the hand-over ring. From then on
        // each log call is refused before Logback formats its message (Logback formats on the
        // first getFormattedMessage): the application pays nothing for an event that cannot be
        // shipped, and the drop is counted.
        try (Intake intake = Intake.start("--misbehave", "never-answer")) {
            LoggerContext ctx = context("    <vendor>ndjson</vendor>\n    <site>" + intake.url + "</site>\n"
                    + "    <spillEnabled>false</spillEnabled>\n    <queueCapacity>500</queueCapacity>\n"
                    + "    <shutdownTimeoutMs>300</shutdownTimeoutMs>\n");
            LogshipAppender appender = appender(ctx);
            AtomicLong formatted = new AtomicLong();
            Object argument = new Object() {
                @Override
                public String toString() {
                    formatted.incrementAndGet();
                    return "x".repeat(100);
                }
            };
            Logger log = ctx.getLogger("overload");
            int n = 100_000;
            for (int i = 0; i < n; i++) {
                log.info("event {}", argument);
            }
            ctx.stop();
            var s = appender.getStats();
            assertTrue(s.droppedQueueFull > n / 2, "the ring filled: " + s);
            assertEquals(n - s.droppedQueueFull, formatted.get(),
                    "only the events taken were formatted: " + s);
            // Taken: queued, or still in the ring at the stop's deadline (closed); or refused.
            assertEquals(n, s.enqueued + s.droppedClosed + s.droppedQueueFull,
                    "every call taken or counted: " + s);
            assertTrue(s.lost >= s.droppedQueueFull, s.toString());
            assertEquals(0, s.delivered, s.toString());
        }
    }
}
