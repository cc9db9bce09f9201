package dev.logship.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import dev.logship.logback.LogshipAppender;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.MDC;
import org.slf4j.MarkerFactory;

/** The Logback appender end to end, configured by a logback.xml with bean properties. */
@Timeout(60)
class LogbackTest {
    @Test
    void logbackEventsReachTheIntakeWithMdcKeyValuesMarkersAndErrors() throws Exception {
        try (Intake intake = Intake.start("--keep-events")) {
            Path xml = Configs.write("logback.xml", "<configuration>\n"
                    + "  <appender name=\"out\" class=\"dev.logship.logback.LogshipAppender\">\n"
                    + "    <vendor>datadog</vendor>\n    <site>" + intake.url + "</site>\n"
                    + "    <apiKey>k</apiKey>\n    <service>billing</service>\n"
                    + "    <spillEnabled>false</spillEnabled>\n    <lingerMillis>50</lingerMillis>\n"
                    + "  </appender>\n  <root level=\"DEBUG\"><appender-ref ref=\"out\"/></root>\n"
                    + "</configuration>\n");
            LoggerContext ctx = new LoggerContext();
            ctx.setMDCAdapter(MDC.getMDCAdapter());
            JoranConfigurator jc = new JoranConfigurator();
            jc.setContext(ctx);
            jc.doConfigure(xml.toFile());
            LogshipAppender appender = (LogshipAppender) ctx.getLogger("ROOT").getAppender("out");
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
}
