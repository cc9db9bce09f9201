package dev.logship.it;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import dev.logship.logback.LogshipAppender;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.MarkerFactory;

/**
 * A child JVM logging through Logback with only the APIs Logback 1.2 and 1.5 share:
 * {@code LogbackApp CONFIG N} logs N events (MDC, a marker, one exception), stops the
 * context and prints the appender's counters.
 */
public final class LogbackApp {
    private LogbackApp() {}

    public static void main(String[] args) throws Exception {
        LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
        ctx.reset();
        JoranConfigurator jc = new JoranConfigurator();
        jc.setContext(ctx);
        jc.doConfigure(args[0]);
        int n = Integer.parseInt(args[1]);
        org.slf4j.Logger log = ctx.getLogger("app");
        MDC.put("tenant", "t1");
        for (int i = 0; i < n - 1; i++) {
            log.info(MarkerFactory.getMarker("AUDIT"), "event {}", i);
        }
        log.error("failed", new IllegalStateException("boom"));
        LogshipAppender appender = (LogshipAppender) ctx.getLogger("ROOT").getAppender("out");
        ctx.stop();
        System.out.println("delivered " + appender.getStats().delivered + " lost " + appender.getStats().lost);
    }
}
