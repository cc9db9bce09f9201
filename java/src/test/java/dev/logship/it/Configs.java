package dev.logship.it;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.logging.log4j.core.LoggerContext;

/** Log4j2 and Logback configurations written to temporary files, and private contexts. */
final class Configs {
    private Configs() {}

    static Path write(String name, String text) throws IOException {
        Path dir = Files.createTempDirectory("logship-it-");
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    /** A Log4j2 configuration with one appender element and the root logger on it. */
    static String log4j2(String appender) {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<Configuration status=\"warn\">\n  <Appenders>\n    " + appender + "\n  </Appenders>\n"
                + "  <Loggers>\n    <Root level=\"debug\"><AppenderRef ref=\"out\"/></Root>\n  </Loggers>\n"
                + "</Configuration>\n";
    }

    /** A started, private Log4j2 context for {@code xml} (stop it to flush). */
    static LoggerContext context(String xml) throws IOException {
        URI uri = write("log4j2.xml", xml).toUri();
        LoggerContext ctx = new LoggerContext("it-" + System.nanoTime(), null, uri);
        ctx.start();
        return ctx;
    }
}
