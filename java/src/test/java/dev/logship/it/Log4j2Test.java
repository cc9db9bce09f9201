package dev.logship.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.logship.jvm.Stats;
import dev.logship.log4j2.LogshipAppender;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.MarkerManager;
import org.apache.logging.log4j.ThreadContext;
import org.apache.logging.log4j.core.LoggerContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Log4j2 plugin end to end: real Log4j2 configurations, real HTTP to the test intake. */
@Timeout(120)
class Log4j2Test {
    private static LogshipAppender appender(LoggerContext ctx) {
        return (LogshipAppender) ctx.getConfiguration().getAppender("out");
    }

    @Test
    void eventsReachTheIntakeWithTheirFields() throws Exception {
        try (Intake intake = Intake.start("--keep-events")) {
            LoggerContext ctx = Configs.context(Configs.log4j2(
                    "<Logship name=\"out\" vendor=\"datadog\" site=\"" + intake.url
                            + "\" apiKey=\"k\" service=\"orders\" spillEnabled=\"false\"/>"));
            LogshipAppender appender = appender(ctx);
            assertNotNull(appender, "the <Logship> element built an appender");
            Logger log = ctx.getLogger("com.example.Orders");
            ThreadContext.put("order_id", "42");
            for (int i = 0; i < 300; i++) {
                log.info(MarkerManager.getMarker("AUDIT"), "order {} placed", i);
            }
            ThreadContext.clearAll();
            ctx.stop();
            Stats stats = appender.getStats();
            assertEquals(300, stats.delivered, stats.toString());
            assertEquals(0, stats.lost, stats.toString());
            assertEquals(300, intake.events());
            String recent = intake.recent();
            assertTrue(recent.contains("\"vendor\":\"datadog\""), recent);
            assertTrue(recent.contains("\"message\":\"order 299 placed\""), "parameters resolved");
            assertTrue(recent.contains("\"ddsource\":\"java\""), "ddsource is java");
            assertTrue(recent.contains("\"service\":\"orders\""));
            assertTrue(recent.contains("\"logger.name\":\"com.example.Orders\""));
            assertTrue(recent.contains("\"logger.thread_name\":\"" + Thread.currentThread().getName() + "\""));
            assertTrue(recent.contains("\"order_id\":\"42\""), "ThreadContext");
            assertTrue(recent.contains("\"markers\":[\"AUDIT\"]"), recent.substring(0, 400));
        }
    }

    @Test
    void aReferenceBatchHttpConfigurationWithOnlyTheSiteChangedShipsToDatadog() throws Exception {
        try (Intake intake = Intake.start("--keep-events")) {
            // The reference appender's README example, packages= left as it is.
            String xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    + "<Configuration status=\"warn\" packages=\"com.mulesoft.support.batchhttp.log4j2\">\n"
                    + "  <Appenders>\n"
                    + "    <BatchHttp name=\"out\" site=\"" + intake.url + "\" apiKey=\"${sys:it.dd.key}\"\n"
                    + "               service=\"hello-app\" source=\"mule\" maxBatchRecords=\"200\"\n"
                    + "               maxBatchBytes=\"1048576\" lingerMillis=\"1000\" queueCapacity=\"10000\"\n"
                    + "               gzip=\"true\" maxRetries=\"3\" spillEnabled=\"false\"/>\n"
                    + "  </Appenders>\n"
                    + "  <Loggers><Root level=\"info\"><AppenderRef ref=\"out\"/></Root></Loggers>\n"
                    + "</Configuration>\n";
            System.setProperty("it.dd.key", "secret-key");
            LoggerContext ctx = Configs.context(xml);
            LogshipAppender appender = appender(ctx);
            assertNotNull(appender, "<BatchHttp> built an appender");
            Logger log = ctx.getLogger("mule.app");
            for (int i = 0; i < 50; i++) {
                log.info("hello {}", i);
            }
            ctx.stop();
            assertEquals(50, intake.events());
            String recent = intake.recent();
            assertTrue(recent.contains("\"vendor\":\"datadog\""), "datadog by default, like the reference");
            assertTrue(recent.contains("\"ddsource\":\"mule\""));
            assertTrue(!recent.contains("secret-key"), "the key is not in the events");
        }
    }

    @Test
    void exceptionsGoToDatadogsErrorFieldsWithEveryFrameCauseAndSuppressed() throws Exception {
        try (Intake intake = Intake.start("--keep-events")) {
            LoggerContext ctx = Configs.context(Configs.log4j2(
                    "<Logship name=\"out\" vendor=\"datadog\" site=\"" + intake.url + "\" apiKey=\"k\" spillEnabled=\"false\"/>"));
            IOException root = new IOException("disk full");
            IllegalStateException top = new IllegalStateException("could not save order", root);
            top.addSuppressed(new IllegalArgumentException("cleanup failed"));
            ctx.getLogger("x").error("save failed", top);
            ctx.stop();
            String recent = intake.recent();
            assertTrue(recent.contains("\"error.kind\":\"java.lang.IllegalStateException\""), recent);
            assertTrue(recent.contains("\"error.message\":\"could not save order\""), recent);
            assertTrue(recent.contains("Caused by: java.io.IOException: disk full"), recent);
            assertTrue(recent.contains("Suppressed: java.lang.IllegalArgumentException: cleanup failed"), recent);
            assertTrue(recent.contains("\\tat dev.logship.it.Log4j2Test.exceptionsGoToDatadogsErrorFields"), recent);
        }
    }

    @Test
    void anOutageIsRetriedAndEverythingIsDeliveredAfterwards() throws Exception {
        try (Intake intake = Intake.start()) {
            intake.post("/_intake/fail?count=3&status=503");
            LoggerContext ctx = Configs.context(Configs.log4j2(
                    "<Logship name=\"out\" vendor=\"datadog\" site=\"" + intake.url
                            + "\" apiKey=\"k\" spillEnabled=\"false\" lingerMillis=\"50\" maxRetries=\"5\""
                            + " retryInitialBackoffMs=\"10\" retryMaxBackoffMs=\"50\"/>"));
            LogshipAppender appender = appender(ctx);
            for (int i = 0; i < 100; i++) {
                ctx.getLogger("x").info("during outage {}", i);
            }
            ctx.stop();
            Stats stats = appender.getStats();
            assertEquals(100, stats.delivered, stats.toString());
            assertEquals(100, intake.events());
            assertTrue(intake.get("/_intake/stats").contains("\"requests\":"), "intake answered");
        }
    }

    @Test
    void anOverloadedAppenderCountsEveryDrop() throws Exception {
        // An intake that never answers: the queue fills, then the hand-over ring; from then on
        // each log call is refused at once (before the appender encodes it) and counted.
        try (Intake intake = Intake.start("--misbehave", "never-answer")) {
            LoggerContext ctx = Configs.context(Configs.log4j2(
                    "<Logship name=\"out\" vendor=\"ndjson\" site=\"" + intake.url
                            + "\" spillEnabled=\"false\" queueCapacity=\"500\" shutdownTimeoutMs=\"300\"/>"));
            LogshipAppender appender = appender(ctx);
            Logger log = ctx.getLogger("overload");
            int n = 100_000;
            for (int i = 0; i < n; i++) {
                log.info("event {} {}", i, "x".repeat(100));
            }
            Stats during = appender.getStats();
            ctx.stop();
            Stats s = appender.getStats();
            assertTrue(s.droppedQueueFull > n / 2, "the ring filled: " + s);
            // Taken: queued, or still in the ring at the stop's deadline (closed); or refused.
            assertEquals(n, s.enqueued + s.droppedClosed + s.droppedQueueFull,
                    "every call taken or counted: " + s);
            assertEquals(during.droppedQueueFull, s.droppedQueueFull, s.toString());
            assertTrue(s.lost >= s.droppedQueueFull, s.toString());
            assertEquals(0, s.delivered, s.toString());
        }
    }

    @Test
    void anUnwritableSpillDirectoryDegradesToMemoryAndStillDelivers() throws Exception {
        try (Intake intake = Intake.start()) {
            Path file = Files.createTempFile("logship-not-a-dir", ".txt");
            LoggerContext ctx = Configs.context(Configs.log4j2(
                    "<Logship name=\"out\" vendor=\"datadog\" site=\"" + intake.url
                            + "\" apiKey=\"k\" spillDir=\"" + file.resolve("spill") + "\"/>"));
            LogshipAppender appender = appender(ctx);
            assertNotNull(appender, "the appender started without its spill");
            assertNotNull(appender.spillUnavailable(), "the reason is kept (and said once at start)");
            for (int i = 0; i < 20; i++) {
                ctx.getLogger("x").info("memory only {}", i);
            }
            ctx.stop();
            assertEquals(20, appender.getStats().delivered);
            assertEquals(20, intake.events());
        }
    }

    @Test
    void everyVendorOnce() throws Exception {
        String[][] vendors = {
            {"datadog", "datadog"}, {"splunk", "splunk"}, {"newrelic", "newrelic"},
            {"dynatrace", "dynatrace"}, {"otlp", "otlp"}, {"loki", "loki"},
            {"elasticsearch", "elasticsearch"},
        };
        for (String[] v : vendors) {
            try (Intake intake = Intake.start("--keep-events")) {
                LoggerContext ctx = Configs.context(Configs.log4j2(
                        "<Logship name=\"out\" vendor=\"" + v[0] + "\" endpoint=\"" + intake.url
                                + "\" apiKey=\"k\" spillEnabled=\"false\"/>"));
                LogshipAppender appender = appender(ctx);
                assertNotNull(appender, v[0]);
                ctx.getLogger("x").warn("to " + v[0], new RuntimeException("boom"));
                ctx.stop();
                assertEquals(1, appender.getStats().delivered, v[0] + ": " + appender.getStats());
                String recent = intake.recent();
                assertTrue(recent.contains("\"vendor\":\"" + v[1] + "\""), v[0] + ": " + recent);
                assertTrue(recent.contains("java.lang.RuntimeException"), v[0] + ": " + recent);
            }
        }
    }
}
