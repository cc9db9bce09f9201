package dev.logship.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The jar with other framework versions than it was compiled against, each in a JVM of its
 * own: Debian's liblog4j2-java (2.19) and Logback 1.2.13 (fetched by java/prefetch.sh).
 * Under CI=true a missing jar fails instead of skipping.
 */
@Timeout(120)
class VersionsTest {
    private static void need(Path... jars) {
        for (Path jar : jars) {
            if (!Files.exists(jar)) {
                assertTrue(!"true".equals(System.getenv("CI")), jar + " is missing (.ci/run installs it)");
                Assumptions.assumeTrue(false, jar + " is missing");
            }
        }
    }

    private static String run(List<Path> classPath, String main, String... args) throws Exception {
        List<String> cp = new ArrayList<>();
        cp.add(System.getProperty("logship.jar"));
        cp.add(System.getProperty("logship.testClasses"));
        for (Path p : classPath) {
            cp.add(p.toString());
        }
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", String.join(File.pathSeparator, cp), main));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(100, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void debiansLog4j219ShipsThroughThePlugin() throws Exception {
        Path api = Path.of("/usr/share/java/log4j-api.jar");
        Path core = Path.of("/usr/share/java/log4j-core.jar");
        need(api, core);
        try (Intake intake = Intake.start("--keep-events")) {
            Path config = Configs.write("log4j2.xml", Configs.log4j2(
                    "<Logship name=\"out\" vendor=\"datadog\" site=\"" + intake.url
                            + "\" apiKey=\"k\" spillEnabled=\"false\"/>"));
            String out = run(List.of(api, core), App.class.getName(), config.toString(), "40", "stats");
            assertTrue(out.contains("notTaken 0 lost 0 delivered 40"), out);
            assertEquals(40, intake.events());
            assertTrue(intake.recent().contains("\"ddsource\":\"java\""));
        }
    }

    @Test
    void logback12ShipsThroughTheAppender() throws Exception {
        Path m2 = Path.of(System.getProperty("logship.m2"));
        Path classic = m2.resolve("ch/qos/logback/logback-classic/1.2.13/logback-classic-1.2.13.jar");
        Path core = m2.resolve("ch/qos/logback/logback-core/1.2.13/logback-core-1.2.13.jar");
        Path slf4j = m2.resolve("org/slf4j/slf4j-api/1.7.36/slf4j-api-1.7.36.jar");
        need(classic, core, slf4j);
        try (Intake intake = Intake.start("--keep-events")) {
            Path xml = Configs.write("logback.xml", "<configuration>\n"
                    + "  <appender name=\"out\" class=\"dev.logship.logback.LogshipAppender\">\n"
                    + "    <vendor>datadog</vendor><site>" + intake.url + "</site><apiKey>k</apiKey>\n"
                    + "    <spillEnabled>false</spillEnabled>\n"
                    + "  </appender>\n  <root level=\"INFO\"><appender-ref ref=\"out\"/></root>\n"
                    + "</configuration>\n");
            String out = run(List.of(classic, core, slf4j), LogbackApp.class.getName(), xml.toString(), "30");
            assertTrue(out.contains("delivered 30 lost 0"), out);
            assertEquals(30, intake.events());
            String recent = intake.recent();
            assertTrue(recent.contains("\"tenant\":\"t1\""), "MDC");
            assertTrue(recent.contains("\"markers\":[\"AUDIT\"]"), "the 1.2 marker");
            assertTrue(recent.contains("\"error.kind\":\"java.lang.IllegalStateException\""), recent);
        }
    }
}
