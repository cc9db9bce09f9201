package dev.logship.jvm;

import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * One appender's MXBean: its pipeline's counters read at each JMX request. Must never throw
 * at registration (a JVM without a platform MBean server, or a name already taken by another
 * loader's appender, leaves it unregistered).
 */
public final class AppenderStats implements AppenderStatsMXBean {
    private final Pipeline pipeline;
    private final ObjectName name;

    private AppenderStats(Pipeline pipeline, ObjectName name) {
        this.pipeline = pipeline;
        this.name = name;
    }

    /** Registers the counters of {@code pipeline}; null when JMX refused. */
    public static AppenderStats register(String framework, String appender, Pipeline pipeline) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("dev.logship:type=Appender,framework=" + framework
                    + ",name=" + ObjectName.quote(String.valueOf(appender)) + ",id="
                    + System.identityHashCode(pipeline));
            AppenderStats bean = new AppenderStats(pipeline, name);
            server.registerMBean(bean, name);
            return bean;
        } catch (Exception | LinkageError e) {
            return null;
        }
    }

    /** Removes the registration (at stop). */
    public void unregister() {
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (Exception | LinkageError e) {
            // already gone
        }
    }

    @Override
    public long getEnqueued() {
        return pipeline.stats().enqueued;
    }

    @Override
    public long getDelivered() {
        return pipeline.stats().delivered;
    }

    @Override
    public long getSpilled() {
        return pipeline.stats().spilled;
    }

    @Override
    public long getReplayed() {
        return pipeline.stats().replayed;
    }

    @Override
    public long getLost() {
        return pipeline.stats().lost;
    }

    @Override
    public long getDroppedQueueFull() {
        return pipeline.stats().droppedQueueFull;
    }

    @Override
    public long getNotTaken() {
        return pipeline.stats().notTaken;
    }

    @Override
    public long getPending() {
        return pipeline.stats().pending;
    }
}
