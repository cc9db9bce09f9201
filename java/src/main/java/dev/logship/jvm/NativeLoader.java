package dev.logship.jvm;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.Locale;

/**
 * Extracts the native library the jar carries and loads it, once per class loader.
 *
 * <p>Why per loader: a JVM lets one native library file be loaded by one class loader only,
 * and two Mule apps or two webapps load this jar through two loaders that share no parent we
 * could use. So each loader copies the library into a private directory (mode 700) of its own
 * and loads that copy: no UnsatisfiedLinkError, one working pipeline per loader. The copy is
 * checked (size and SHA-256 against the bytes read from the jar) before it is loaded.
 *
 * <p>Must never throw: a failure is kept as text ({@link #failure()}) and the appenders say it
 * once and count the events they could not take.
 */
public final class NativeLoader {
    /** Set to a directory to extract into instead of java.io.tmpdir (tests, noexec /tmp). */
    public static final String TMPDIR_PROPERTY = "logship.native.tmpdir";
    /** Set to a resource path to load instead of the platform's (tests of a missing library). */
    public static final String RESOURCE_PROPERTY = "logship.native.resource";

    private static final Object LOCK = new Object();
    private static volatile boolean done;
    private static volatile String failure;

    private NativeLoader() {}

    /** The resource holding this platform's library, or null when the jar carries none. */
    static String resource() {
        String given = System.getProperty(RESOURCE_PROPERTY);
        if (given != null) {
            return given;
        }
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (os.contains("linux") && (arch.equals("amd64") || arch.equals("x86_64"))) {
            return "/dev/logship/jvm/native/linux-x86_64/liblogship_jni.so";
        }
        return null;
    }

    /** Loads the library if not done yet; whether it is loaded. */
    public static boolean load() {
        if (done) {
            return failure == null;
        }
        synchronized (LOCK) {
            if (!done) {
                try {
                    failure = extractAndLoad();
                } catch (Throwable t) {
                    failure = "logship: the native library could not be loaded (" + t + ")";
                }
                done = true;
            }
        }
        return failure == null;
    }

    /** Why the library is not loaded, or null. */
    public static String failure() {
        load();
        return failure;
    }

    private static String extractAndLoad() throws Exception {
        String resource = resource();
        if (resource == null) {
            return "logship: no native library in this jar for " + System.getProperty("os.name")
                    + " " + System.getProperty("os.arch")
                    + " (it carries linux-x86_64); events are counted as not taken";
        }
        String base = System.getProperty(TMPDIR_PROPERTY, System.getProperty("java.io.tmpdir"));
        Path dir = Files.createTempDirectory(Path.of(base), "logship-jni-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        dir.toFile().deleteOnExit();
        Path file = dir.resolve("liblogship_jni.so");
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        long size = 0;
        try (InputStream in = NativeLoader.class.getResourceAsStream(resource)) {
            if (in == null) {
                return "logship: the jar has no native library at " + resource
                        + " (a damaged or incomplete jar: rebuild it with java/build.sh)";
            }
            try (OutputStream out = Files.newOutputStream(file)) {
                byte[] buf = new byte[1 << 16];
                int n;
                while ((n = in.read(buf)) > 0) {
                    out.write(buf, 0, n);
                    sha.update(buf, 0, n);
                    size += n;
                }
            }
        }
        file.toFile().deleteOnExit();
        byte[] expected = sha.digest();
        if (Files.size(file) != size
                || !MessageDigest.isEqual(expected, digest(file))) {
            return "logship: the native library extracted to " + dir
                    + " does not match the jar's (disk full or changed meanwhile)";
        }
        try {
            System.load(file.toAbsolutePath().toString());
        } catch (UnsatisfiedLinkError e) {
            return "logship: the native library could not be loaded from " + dir + " ("
                    + e.getMessage() + "); if the temporary directory is mounted noexec, set -D"
                    + TMPDIR_PROPERTY + " to a directory that allows executables";
        }
        return null;
    }

    private static byte[] digest(Path file) throws IOException, java.security.NoSuchAlgorithmException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                sha.update(buf, 0, n);
            }
        }
        return sha.digest();
    }
}
