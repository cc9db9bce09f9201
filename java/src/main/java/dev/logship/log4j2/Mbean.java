package dev.logship.log4j2;

import dev.logship.jvm.AppenderStats;
import dev.logship.jvm.Pipeline;

/** Registers an appender's counters over JMX; a failure (no JMX, a name taken) is silent but harmless. */
final class Mbean {
    private final AppenderStats registered;

    private Mbean(AppenderStats registered) {
        this.registered = registered;
    }

    static Mbean register(String name, Pipeline pipeline) {
        return new Mbean(AppenderStats.register("log4j2", name, pipeline));
    }

    void unregister() {
        if (registered != null) {
            registered.unregister();
        }
    }
}
