package dev.logship.it;

import dev.logship.log4j2.LogshipAppender;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.LoggerContext;

/**
 * A child JVM for the tests that need a process of their own: {@code App CONFIG N MODE}
 * logs N events through the Log4j2 configuration CONFIG (found by log4j2.configurationFile,
 * as an application's is), then: {@code exit} calls System.exit(0) at once (Log4j2's
 * shutdown hook must flush); {@code spill} waits until N events are spilled, prints
 * "spilled", and waits to be killed; {@code drain} waits until the spill is replayed, then
 * shuts down and prints the counters; {@code stats} shuts down and prints the counters.
 */
public final class App {
    private App() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("log4j2.configurationFile", args[0]);
        int n = Integer.parseInt(args[1]);
        String mode = args[2];
        Logger log = LogManager.getLogger("app");
        for (int i = 0; i < n; i++) {
            log.info("event {}", i);
        }
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        LogshipAppender appender = (LogshipAppender) ctx.getConfiguration().getAppender("out");
        switch (mode) {
            case "exit":
                System.exit(0);
                break;
            case "spill":
                while (appender.getStats().spilled < n) {
                    Thread.sleep(10);
                }
                System.out.println("spilled " + appender.getStats().spilled);
                System.out.flush();
                Thread.sleep(600_000);
                break;
            case "drain":
                while (appender.getStats().replayed < Long.parseLong(args[3])) {
                    Thread.sleep(10);
                }
                LogManager.shutdown();
                System.out.println("replayed " + appender.getStats().replayed);
                break;
            default:
                LogManager.shutdown();
                System.out.println("notTaken " + (appender == null ? -1 : appender.getStats().notTaken)
                        + " lost " + (appender == null ? -1 : appender.getStats().lost)
                        + " delivered " + (appender == null ? -1 : appender.getStats().delivered));
        }
    }
}
