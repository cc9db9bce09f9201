package dev.logship.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Two class loaders load the jar in one JVM, as two Mule apps or two webapps do. */
@Timeout(60)
class ClassLoaderTest {
    private static long deliver(ClassLoader loader, String url, String message) throws Exception {
        Class<?> pipeline = Class.forName("dev.logship.jvm.Pipeline", true, loader);
        Object p = pipeline.getMethod("open", List.class).invoke(null,
                List.of("vendor", "datadog", "site", url, "apiKey", "k", "spillEnabled", "false"));
        Object failure = pipeline.getMethod("failure").invoke(p);
        assertEquals(null, failure, "the library loaded in this loader");
        Method push = pipeline.getMethod("push", long.class, int.class, String.class, String.class,
                String.class, String[].class, String[].class, Throwable.class);
        assertEquals(true, push.invoke(p, 0L, 2, "loader", "main", message, new String[0], new String[0], null));
        Object stats = pipeline.getMethod("stop", long.class).invoke(p, 5000L);
        return stats.getClass().getField("delivered").getLong(stats);
    }

    @Test
    void twoLoadersEachGetAWorkingPipeline() throws Exception {
        URL jar = Path.of(System.getProperty("logship.jar")).toUri().toURL();
        try (Intake intake = Intake.start();
                URLClassLoader a = new URLClassLoader(new URL[] {jar}, ClassLoader.getPlatformClassLoader());
                URLClassLoader b = new URLClassLoader(new URL[] {jar}, ClassLoader.getPlatformClassLoader())) {
            assertNotSame(Class.forName("dev.logship.jvm.Pipeline", false, a),
                    Class.forName("dev.logship.jvm.Pipeline", false, b));
            assertEquals(1, deliver(a, intake.url, "from loader a"));
            assertEquals(1, deliver(b, intake.url, "from loader b"));
            // And this test's own loader (the jar on the class path) too: three copies, one JVM.
            assertEquals(1, deliver(ClassLoaderTest.class.getClassLoader(), intake.url, "from the app loader"));
            assertEquals(3, intake.events());
        }
    }
}
