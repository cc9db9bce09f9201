package dev.logship.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 31 item 8: the appender's counters read over JMX from the platform MBean server, by
 * name and attribute as a JMX console (jconsole, a Prometheus JMX exporter) reads them.
 */
@Timeout(120)
class JmxTest {
    private static long attribute(MBeanServer server, ObjectName name, String attribute)
            throws Exception {
        return ((Number) server.getAttribute(name, attribute)).longValue();
    }

    @Test
    void theMBeansCountersAreReadOverJmxAndItIsGoneAfterStop() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName pattern = new ObjectName(
                "dev.logship:type=Appender,framework=log4j2,name=\"out\",*");
        try (Intake intake = Intake.start()) {
            // Refused twice first: the counters are read while events wait for retries.
            intake.post("/_intake/fail?count=2&status=503");
            LoggerContext ctx = Configs.context(Configs.log4j2(
                    "<Logship name=\"out\" vendor=\"datadog\" site=\"" + intake.url
                            + "\" apiKey=\"k\" spillEnabled=\"false\" lingerMillis=\"20\""
                            + " maxRetries=\"5\" retryInitialBackoffMs=\"10\""
                            + " retryMaxBackoffMs=\"20\"/>"));
            Set<ObjectName> names = server.queryNames(pattern, null);
            assertEquals(1, names.size(), "one MBean for the appender: " + names);
            ObjectName name = names.iterator().next();
            Logger log = ctx.getLogger("x");
            for (int i = 0; i < 40; i++) {
                log.info("counted {}", i);
            }
            assertEquals(40, attribute(server, name, "Enqueued"));
            // Waits for the counters to settle (bounded by the test's timeout).
            while (attribute(server, name, "Pending") > 0
                    || attribute(server, name, "Delivered") < 40) {
                Thread.sleep(10);
            }
            assertEquals(40, attribute(server, name, "Delivered"));
            assertEquals(0, attribute(server, name, "Lost"));
            assertEquals(0, attribute(server, name, "DroppedQueueFull"));
            assertEquals(0, attribute(server, name, "NotTaken"));
            assertEquals(40, intake.events(), "the intake saw what JMX says was delivered");
            ctx.stop();
            assertTrue(server.queryNames(pattern, null).isEmpty(), "unregistered at stop");
        }
    }
}
