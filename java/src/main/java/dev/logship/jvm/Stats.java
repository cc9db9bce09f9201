package dev.logship.jvm;

/**
 * The pipeline's counters as plain numbers (the Rust side's Stats, crates/logship-jni/src/stats.rs
 * keeps the same order), plus what the Java side counted itself: events it could not take
 * because the pipeline never started (no native library, bad configuration).
 */
public final class Stats {
    /** The names of the native counters, in order. */
    static final String[] NAMES = {
        "enqueued", "delivered", "spilled", "replayed", "failed", "abandoned",
        "droppedQueueFull", "droppedClosed", "suppressed", "spillDropped", "pending", "lost",
        "handedOver",
    };

    /** Events accepted by the pipeline. */
    public final long enqueued;
    /** Events the intake confirmed. */
    public final long delivered;
    /** Events written to the spill directory (replayed later, not lost). */
    public final long spilled;
    /** Events replayed from the spill directory. */
    public final long replayed;
    /** Events the intake refused for good. */
    public final long failed;
    /** Events given up on at stop (time ran out, no spill). */
    public final long abandoned;
    /** Events refused because the queue was full. */
    public final long droppedQueueFull;
    /** Events refused because the appender was stopped. */
    public final long droppedClosed;
    /** Events held back by burst limits, sampling or budgets (the user's policy, not lost). */
    public final long suppressed;
    /** Spilled events dropped by the spill's own size cap. */
    public final long spillDropped;
    /** Events accepted and not yet settled. */
    public final long pending;
    /** Events that will not reach the intake, whatever the reason (includes notTaken). */
    public final long lost;
    /** Events the appender could not hand to a pipeline (not started, native failure). */
    public final long notTaken;
    /** Events the hand-over ring's native consumer has taken (what is left there is pending). */
    final long handedOver;

    Stats(long[] n, long notTaken) {
        long[] v = n != null && n.length >= NAMES.length ? n : new long[NAMES.length];
        enqueued = v[0];
        delivered = v[1];
        spilled = v[2];
        replayed = v[3];
        failed = v[4];
        abandoned = v[5];
        droppedQueueFull = v[6];
        droppedClosed = v[7];
        suppressed = v[8];
        spillDropped = v[9];
        pending = v[10];
        lost = v[11] + notTaken;
        handedOver = v[12];
        this.notTaken = notTaken;
    }

    /** True when nothing was lost and nothing waits (spilled events are replayed by the next start). */
    public boolean complete() {
        return lost == 0 && pending == 0;
    }

    @Override
    public String toString() {
        return "delivered " + delivered + ", spilled " + spilled + ", lost " + lost
                + " (queue full " + droppedQueueFull + ", closed " + droppedClosed + ", failed "
                + failed + ", abandoned " + abandoned + ", not taken " + notTaken + "), pending "
                + pending + ", suppressed " + suppressed + ", replayed " + replayed;
    }
}
