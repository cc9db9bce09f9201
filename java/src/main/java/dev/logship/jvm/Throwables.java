package dev.logship.jvm;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * A throwable as the vendors' error fields want it: class name, message, the causes'
 * messages, and the whole {@code printStackTrace} text (every frame, "Caused by:" and
 * "Suppressed:"). Must never throw (a throwable whose own methods throw is described by
 * what could be read) or loop on a cause cycle (the JDK's printStackTrace guards it; the
 * cause walk here is bounded).
 */
public final class Throwables {
    /** Most causes whose messages are kept. */
    private static final int MAX_CAUSES = 32;

    private Throwables() {}

    /** The class name (e.g. {@code java.io.IOException}). */
    public static String kind(Throwable t) {
        return t.getClass().getName();
    }

    /** The message, {@code ""} when null or unreadable. */
    public static String message(Throwable t) {
        try {
            String m = t.getMessage();
            return m == null ? "" : m;
        } catch (RuntimeException e) {
            return "";
        }
    }

    /** The causes' {@code toString()}, outermost first, one per line. */
    public static String causes(Throwable t) {
        StringBuilder out = new StringBuilder();
        Throwable c = t.getCause();
        for (int i = 0; c != null && c != t && i < MAX_CAUSES; i++) {
            if (out.length() > 0) {
                out.append('\n');
            }
            try {
                out.append(c);
            } catch (RuntimeException e) {
                out.append(c.getClass().getName());
            }
            c = c.getCause();
        }
        return out.toString();
    }

    /** {@code printStackTrace} text. */
    public static String trace(Throwable t) {
        StringWriter w = new StringWriter(1024);
        try (PrintWriter p = new PrintWriter(w)) {
            t.printStackTrace(p);
        } catch (RuntimeException e) {
            return kind(t) + ": " + message(t);
        }
        return w.toString();
    }
}
