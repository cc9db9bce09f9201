package dev.logship.jvm;

/** An appender's counters over JMX ({@code dev.logship:type=Appender,framework=...,name=...}). */
public interface AppenderStatsMXBean {
    /** Events accepted. @return the count */
    long getEnqueued();

    /** Events delivered. @return the count */
    long getDelivered();

    /** Events spilled to disk. @return the count */
    long getSpilled();

    /** Events replayed from disk. @return the count */
    long getReplayed();

    /** Events lost, every reason. @return the count */
    long getLost();

    /** Events refused because the queue was full. @return the count */
    long getDroppedQueueFull();

    /** Events not taken (no pipeline). @return the count */
    long getNotTaken();

    /** Events accepted, not settled yet. @return the count */
    long getPending();
}
