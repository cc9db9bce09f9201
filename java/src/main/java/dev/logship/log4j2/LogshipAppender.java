package dev.logship.log4j2;

import dev.logship.jvm.Pipeline;
import dev.logship.jvm.Stats;
import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.Marker;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.Core;
import org.apache.logging.log4j.core.Filter;
import org.apache.logging.log4j.core.Layout;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.config.plugins.Plugin;
import org.apache.logging.log4j.core.config.plugins.PluginBuilderFactory;
import org.apache.logging.log4j.util.ReadOnlyStringMap;

/**
 * The Log4j2 appender {@code <Logship>}: hands each event to logship's Rust core, which
 * batches, compresses, retries, spills and ships it to the configured vendor. The caller only
 * enqueues. Every option of the key table is an attribute ({@link KeyTableAttributes}).
 *
 * <p>Must never: throw into the logging call, block beyond the configured overflow policy,
 * or lose an event without counting it. A missing native library or an unwritable spill
 * directory is said once through the StatusLogger; the application runs on.
 */
@Plugin(name = "Logship", category = Core.CATEGORY_NAME, elementType = Appender.ELEMENT_TYPE, printObject = true)
public class LogshipAppender extends AbstractAppender {
    private static final String[] NONE = new String[0];
    /** Most marker names (parents included) read from one event. */
    private static final int MAX_MARKERS = 64;

    private final Pipeline pipeline;
    private final Mbean mbean;

    /** For {@code <BatchHttp>}'s class only (Log4j2 checks an element's plugin class is an Appender). */
    protected LogshipAppender(String name, Filter filter, Layout<? extends Serializable> layout,
            boolean ignoreExceptions, Pipeline pipeline) {
        super(name, filter, layout, ignoreExceptions, Property.EMPTY_ARRAY);
        this.pipeline = pipeline;
        this.mbean = Mbean.register(name, pipeline);
    }

    /** The builder Log4j2 fills from the configuration. */
    @PluginBuilderFactory
    public static <B extends Builder<B>> B newBuilder() {
        return new Builder<B>().asBuilder();
    }

    /** The attributes: {@code name}, a layout (optional), and every key-table option. */
    public static class Builder<B extends Builder<B>> extends KeyTableAttributes<B>
            implements org.apache.logging.log4j.core.util.Builder<LogshipAppender> {
        private String defaultVendor;

        /**
         * The vendor when none is given ({@code <BatchHttp>}: datadog, as the reference appender).
         *
         * @return this builder
         */
        public B setDefaultVendor(String vendor) {
            this.defaultVendor = vendor;
            return asBuilder();
        }

        @Override
        public LogshipAppender build() {
            List<String> attributes = new ArrayList<>();
            givenAttributes(attributes);
            if (defaultVendor != null && !attributes.contains("vendor")) {
                attributes.add("vendor");
                attributes.add(defaultVendor);
            }
            Pipeline pipeline;
            try {
                pipeline = Pipeline.open(attributes);
            } catch (IllegalArgumentException e) {
                LOGGER.error("Appender {}: {}", getName(), e.getMessage());
                return null;
            }
            if (pipeline.failure() != null) {
                LOGGER.error("Appender {}: {}", getName(), pipeline.failure());
            }
            String spill = pipeline.spillUnavailable();
            if (spill != null) {
                LOGGER.warn("Appender {}: spill is off, events are kept in memory only: {}", getName(), spill);
            }
            return new LogshipAppender(getName(), getFilter(), getLayout(), isIgnoreExceptions(), pipeline);
        }
    }

    /** The pipeline's counters (also over JMX, {@code dev.logship:type=Appender,name=...}). */
    public Stats getStats() {
        return pipeline.stats();
    }

    /** Why spill is off although enabled (an unwritable directory, ...), or null. */
    public String spillUnavailable() {
        return pipeline.spillUnavailable();
    }

    /** Sends what is queued and waits at most {@code millis}; whether everything settled. */
    public boolean flush(long millis) {
        return pipeline.flush(millis);
    }

    @Override
    public final void append(LogEvent event) {
        if (pipeline.refusedAtOnce()) {
            return; // the ring is full: counted, and nothing formatted for it
        }
        long nanos = event.getInstant().getEpochSecond() * 1_000_000_000L + event.getInstant().getNanoOfSecond();
        String message;
        Layout<? extends Serializable> layout = getLayout();
        if (layout != null) {
            Serializable s = layout.toSerializable(event);
            message = s == null ? "" : s.toString();
        } else {
            message = event.getMessage() == null ? "" : event.getMessage().getFormattedMessage();
        }
        ReadOnlyStringMap data = event.getContextData();
        String[] context = NONE;
        if (data != null && !data.isEmpty()) {
            String[] kv = new String[data.size() * 2];
            int[] at = {0};
            data.forEach((k, v) -> {
                if (at[0] + 1 < kv.length) {
                    kv[at[0]++] = k;
                    kv[at[0]++] = String.valueOf(v);
                }
            });
            context = kv;
        }
        pipeline.push(nanos, level(event.getLevel()), event.getLoggerName(), event.getThreadName(),
                message, context, markers(event.getMarker()), event.getThrown());
    }

    static int level(Level level) {
        int n = level == null ? Level.INFO.intLevel() : level.intLevel();
        if (n <= Level.ERROR.intLevel()) {
            return Pipeline.ERROR;
        } else if (n <= Level.WARN.intLevel()) {
            return Pipeline.WARN;
        } else if (n <= Level.INFO.intLevel()) {
            return Pipeline.INFO;
        } else if (n <= Level.DEBUG.intLevel()) {
            return Pipeline.DEBUG;
        }
        return Pipeline.TRACE;
    }

    /** The marker's name and its parents' (breadth first, each once, bounded: no recursion). */
    static String[] markers(Marker marker) {
        if (marker == null) {
            return NONE;
        }
        List<String> names = new ArrayList<>();
        ArrayDeque<Marker> todo = new ArrayDeque<>();
        todo.add(marker);
        while (!todo.isEmpty() && names.size() < MAX_MARKERS) {
            Marker m = todo.poll();
            if (names.contains(m.getName())) {
                continue;
            }
            names.add(m.getName());
            Marker[] parents = m.getParents();
            if (parents != null) {
                for (Marker p : parents) {
                    todo.add(p);
                }
            }
        }
        return names.toArray(NONE);
    }

    @Override
    public final boolean stop(long timeout, TimeUnit timeUnit) {
        setStopping();
        super.stop(timeout, timeUnit, false);
        // Log4j2 passes what is left of its own budget (often a few ms, or 0 for "no
        // limit"); the bound here is the appender's shutdownTimeoutMs (5 s by default),
        // so that LogManager.shutdown, LoggerContext.stop and the shutdown hook all flush.
        Stats stats = pipeline.stop(-1);
        if (stats.complete()) {
            LOGGER.info("Appender {} stopped: {}", getName(), stats);
        } else {
            LOGGER.warn("Appender {} stopped: {}", getName(), stats);
        }
        mbean.unregister();
        setStopped();
        return true;
    }
}
