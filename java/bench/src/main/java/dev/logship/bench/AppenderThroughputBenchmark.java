package dev.logship.bench;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.impl.Log4jLogEvent;
import org.apache.logging.log4j.message.SimpleMessage;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Log4j2's appender throughput benchmark, as its maintainers published it (the MemoryMappedFile
 * appender's pull request): {@code appender} calls {@code Appender.append} with one prepared
 * event, {@code end2end} calls {@code logger.info} through a whole configuration; a
 * {@code messageSizeBytes} message; one appender per {@code loggerType}: Log4j2's File,
 * RandomAccessFile, MemoryMappedFile and Http (to the local intake), and logship's
 * {@code <Logship>} (to the same intake).
 *
 * <p>Every trial runs in its own JVM (JMH's fork) with a fresh configuration, files and spill
 * directory under {@code bench.dir}. At the end of a trial it stops the configuration (which
 * flushes {@code <Logship>} within its shutdown bound) and appends one line to
 * {@code bench.stats}: what the intake received during the trial and, for Logship, the
 * appender's counters (events taken, delivered, dropped because the queue was full, lost),
 * so that ops/s are never read without what became of the events.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class AppenderThroughputBenchmark {
    /** Which appender: File, RAF, MMap, Http or Logship (log4j2-bench-TYPE.xml). */
    @Param({"File", "RAF", "MMap", "Http", "Logship"})
    public String loggerType;

    /** The message's length in characters (ASCII: bytes). */
    @Param({"150"})
    public int messageSizeBytes;

    private LoggerContext context;
    private Logger logger;
    private Appender appender;
    private LogEvent event;
    private String message;
    private long intakeBefore;

    /** A fresh configuration for this trial's appender, its files in a new directory. */
    @Setup(org.openjdk.jmh.annotations.Level.Trial)
    public void setUp() throws Exception {
        Path base = Paths.get(System.getProperty("bench.dir", System.getProperty("java.io.tmpdir")));
        Files.createDirectories(base);
        Path dir = Files.createTempDirectory(base, loggerType + "-");
        System.setProperty("bench.file", dir.resolve("bench.log").toString());
        System.setProperty("bench.spill", dir.resolve("spill").toString());
        System.setProperty("bench.url", System.getProperty("bench.url", "http://127.0.0.1:9"));
        URI config = AppenderThroughputBenchmark.class.getResource("/log4j2-bench-" + loggerType + ".xml").toURI();
        context = Configurator.initialize("bench-" + loggerType, null, config);
        logger = context.getLogger("bench");
        appender = context.getConfiguration().getAppender("bench");
        if (appender == null) {
            throw new IllegalStateException("appender 'bench' of " + config + " was not created (see the status output)");
        }
        char[] chars = new char[messageSizeBytes];
        Arrays.fill(chars, 'a');
        message = new String(chars);
        event = Log4jLogEvent.newBuilder()
                .setLoggerName("bench")
                .setLoggerFqcn(AppenderThroughputBenchmark.class.getName())
                .setLevel(Level.INFO)
                .setMessage(new SimpleMessage(message))
                .setThreadName("bench")
                .setTimeMillis(System.currentTimeMillis())
                .build();
        intakeBefore = intakeEvents();
    }

    /** One event straight into the appender (no logger, no filter, no context lookup). */
    @Benchmark
    public void appender() {
        appender.append(event);
    }

    /** One {@code logger.info} through the whole configuration. */
    @Benchmark
    public void end2end() {
        logger.info(message);
    }

    /** Stops the configuration (flushes) and records what became of the events. */
    @TearDown(org.openjdk.jmh.annotations.Level.Trial)
    public void tearDown(BenchmarkParams params) throws IOException {
        Configurator.shutdown(context);
        String out = System.getProperty("bench.stats");
        if (out == null) {
            return;
        }
        String name = params.getBenchmark();
        name = name.substring(name.lastIndexOf('.') + 1);
        long received = intakeEvents() - intakeBefore;
        String line = String.join("\t", name, loggerType, Integer.toString(params.getThreads()),
                intakeBefore < 0 ? "-" : Long.toString(received), counters(appender)) + "\n";
        Files.writeString(Paths.get(out), line, StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /**
     * Logship's counters after its stop, read by reflection (this module does not compile
     * against the product jar): taken, delivered, droppedQueueFull, lost, spilled; dashes for
     * the other appenders.
     */
    private static String counters(Appender appender) {
        try {
            Object stats = appender.getClass().getMethod("getStats").invoke(appender);
            StringBuilder b = new StringBuilder();
            for (String f : new String[] {"enqueued", "delivered", "droppedQueueFull", "lost", "spilled"}) {
                Field field = stats.getClass().getField(f);
                if (b.length() > 0) {
                    b.append('\t');
                }
                b.append(field.getLong(stats));
            }
            return b.toString();
        } catch (ReflectiveOperationException e) {
            return "-\t-\t-\t-\t-";
        }
    }

    /** Events the intake has counted so far ({@code bench.url}/_intake/stats), or -1. */
    private static long intakeEvents() {
        String url = System.getProperty("bench.url");
        if (url == null) {
            return -1;
        }
        try {
            HttpURLConnection c = (HttpURLConnection) new URL(url + "/_intake/stats").openConnection();
            c.setConnectTimeout(2000);
            c.setReadTimeout(5000);
            try (InputStream in = c.getInputStream()) {
                Matcher m = Pattern.compile("\"events\":(\\d+)")
                        .matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                return m.find() ? Long.parseLong(m.group(1)) : -1;
            }
        } catch (IOException e) {
            return -1;
        }
    }
}
