package dev.logship.logback;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxy;
import dev.logship.jvm.AppenderStats;
import dev.logship.jvm.Pipeline;
import dev.logship.jvm.Stats;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Logback appender: hands each event to logship's Rust core. Every key-table option is a
 * bean property ({@code <vendor>}, {@code <apiKey>}, {@code <lingerMillis>}: {@link
 * KeyTableSetters}). Works with Logback 1.2 (MDC, marker, throwable) and 1.3+ (also several
 * markers, key-value pairs and nanosecond instants).
 *
 * <p>Stopping (LoggerContext.stop, Logback's shutdown hook, or this appender's own hook at
 * JVM exit) flushes within {@code shutdownTimeoutMs} (5 s by default) and reports to the
 * status manager. Must never throw into a logging call or lose an event uncounted.
 */
public class LogshipAppender extends KeyTableSetters {
    private static final String[] NONE = new String[0];
    private static final int MAX_MARKERS = 64;

    private volatile Pipeline pipeline;
    private AppenderStats mbean;
    private Thread hook;
    /** Whether the 1.3+ event methods exist (checked once, on the first event). */
    private volatile int modern = -1;

    @Override
    public void start() {
        List<String> attributes = new ArrayList<>();
        givenAttributes(attributes);
        Pipeline p;
        try {
            p = Pipeline.open(attributes);
        } catch (IllegalArgumentException e) {
            addError(e.getMessage());
            return;
        }
        if (p.failure() != null) {
            addError(p.failure());
        }
        String spill = p.spillUnavailable();
        if (spill != null) {
            addWarn("spill is off, events are kept in memory only: " + spill);
        }
        pipeline = p;
        mbean = AppenderStats.register("logback", getName(), p);
        hook = new Thread(() -> finish(-1), "logship-logback-exit");
        try {
            Runtime.getRuntime().addShutdownHook(hook);
        } catch (IllegalStateException | SecurityException e) {
            hook = null;
        }
        super.start();
    }

    @Override
    public void stop() {
        if (!isStarted()) {
            return;
        }
        super.stop();
        Thread h = hook;
        if (h != null && Thread.currentThread() != h) {
            try {
                Runtime.getRuntime().removeShutdownHook(h);
            } catch (IllegalStateException | SecurityException e) {
                // the JVM is exiting: the hook flushes too, the pipeline's stop is idempotent
            }
        }
        finish(-1);
    }

    private void finish(long millis) {
        Pipeline p = pipeline;
        if (p == null) {
            return;
        }
        Stats stats = p.stop(millis);
        if (stats.complete()) {
            addInfo("stopped: " + stats);
        } else {
            addWarn("stopped: " + stats);
        }
        if (mbean != null) {
            mbean.unregister();
        }
    }

    /** The pipeline's counters (null before start). */
    public Stats getStats() {
        Pipeline p = pipeline;
        return p == null ? null : p.stats();
    }

    @Override
    protected void append(ILoggingEvent event) {
        Pipeline p = pipeline;
        if (p == null || p.refusedAtOnce()) {
            return; // not started, or the ring is full: counted, and nothing formatted for it
        }
        long nanos = event.getTimeStamp() * 1_000_000L;
        List<String> context = new ArrayList<>();
        try {
            Map<String, String> mdc = event.getMDCPropertyMap();
            if (mdc != null) {
                for (Map.Entry<String, String> e : mdc.entrySet()) {
                    context.add(e.getKey());
                    context.add(String.valueOf(e.getValue()));
                }
            }
        } catch (RuntimeException e) {
            // a context without an MDC adapter (built by hand): the event goes without its MDC
        }
        List<String> markers = new ArrayList<>();
        if (modern != 0) {
            try {
                java.time.Instant at = event.getInstant();
                if (at != null) {
                    nanos = at.getEpochSecond() * 1_000_000_000L + at.getNano();
                }
                if (event.getKeyValuePairs() != null) {
                    for (org.slf4j.event.KeyValuePair kv : event.getKeyValuePairs()) {
                        context.add(kv.key);
                        context.add(String.valueOf(kv.value));
                    }
                }
                if (event.getMarkerList() != null) {
                    for (org.slf4j.Marker m : event.getMarkerList()) {
                        addMarker(markers, m);
                    }
                }
                modern = 1;
            } catch (NoSuchMethodError | NoClassDefFoundError e) {
                modern = 0;
            }
        }
        if (modern == 0) {
            addLegacyMarker(event, markers);
        }
        String message;
        try {
            message = event.getFormattedMessage();
        } catch (RuntimeException e) {
            message = event.getMessage(); // an argument's toString() threw
        }
        p.push(nanos, level(event.getLevel()), event.getLoggerName(), event.getThreadName(),
                message, context.toArray(NONE), markers.toArray(NONE),
                throwable(event.getThrowableProxy()));
    }

    @SuppressWarnings("deprecation")
    private static void addLegacyMarker(ILoggingEvent event, List<String> markers) {
        try {
            java.lang.reflect.Method m = event.getClass().getMethod("getMarker");
            Object marker = m.invoke(event);
            if (marker instanceof org.slf4j.Marker) {
                addMarker(markers, (org.slf4j.Marker) marker);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // no marker
        }
    }

    /** A marker's name and its references' (breadth first, bounded, no recursion). */
    private static void addMarker(List<String> out, org.slf4j.Marker marker) {
        java.util.ArrayDeque<org.slf4j.Marker> todo = new java.util.ArrayDeque<>();
        todo.add(marker);
        while (!todo.isEmpty() && out.size() < MAX_MARKERS) {
            org.slf4j.Marker m = todo.poll();
            if (out.contains(m.getName())) {
                continue;
            }
            out.add(m.getName());
            java.util.Iterator<org.slf4j.Marker> it = m.iterator();
            while (it.hasNext()) {
                todo.add(it.next());
            }
        }
    }

    private static Throwable throwable(IThrowableProxy proxy) {
        if (proxy instanceof ThrowableProxy) {
            return ((ThrowableProxy) proxy).getThrowable();
        }
        return null;
    }

    static int level(Level level) {
        if (level == null) {
            return Pipeline.INFO;
        }
        switch (level.toInt()) {
            case Level.ERROR_INT:
                return Pipeline.ERROR;
            case Level.WARN_INT:
                return Pipeline.WARN;
            case Level.INFO_INT:
                return Pipeline.INFO;
            case Level.DEBUG_INT:
                return Pipeline.DEBUG;
            default:
                return Pipeline.TRACE;
        }
    }
}
