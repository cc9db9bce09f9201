package dev.logship.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What needs a JVM of its own: System.exit, kill -9 and replay, a missing native library. */
@Timeout(180)
class ProcessTest {
    private static Process app(Path config, int n, String mode, String... more) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path")));
        for (String m : more) {
            if (m.startsWith("-D")) {
                cmd.add(m);
            }
        }
        cmd.addAll(List.of(App.class.getName(), config.toString(), String.valueOf(n), mode));
        for (String m : more) {
            if (!m.startsWith("-D")) {
                cmd.add(m);
            }
        }
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    private static String all(Process p) throws Exception {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the app ended");
        return out;
    }

    @Test
    void systemExitFlushesThroughLog4jsShutdownHook() throws Exception {
        try (Intake intake = Intake.start()) {
            Path config = Configs.write("log4j2.xml", Configs.log4j2(
                    "<Logship name=\"out\" vendor=\"datadog\" site=\"" + intake.url
                            + "\" apiKey=\"k\" spillEnabled=\"false\" lingerMillis=\"60000\"/>"));
            Process p = app(config, 500, "exit");
            String out = all(p);
            assertEquals(0, p.exitValue(), out);
            assertEquals(500, intake.events(), out);
        }
    }

    @Test
    void aMissingNativeLibraryIsSaidOnceCountedAndTheAppRunsOn() throws Exception {
        Path config = Configs.write("log4j2.xml", Configs.log4j2(
                "<Logship name=\"out\" vendor=\"datadog\" site=\"http://127.0.0.1:9\" apiKey=\"k\"/>"));
        Process p = app(config, 7, "stats", "-Dlogship.native.resource=/dev/logship/jvm/native/none.so");
        String out = all(p);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("notTaken 7 lost 7"), out);
        Matcher m = Pattern.compile("has no native library").matcher(out);
        int said = 0;
        while (m.find()) {
            said++;
        }
        assertEquals(1, said, "said once: " + out);
    }

    @Test
    void afterKillDashNineDuringAnOutageTheNextStartReplaysEverythingOnce() throws Exception {
        Path spill = Files.createTempDirectory("logship-spill-");
        // The intake is down: nothing listens on this port yet.
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String appender = "<Logship name=\"out\" vendor=\"datadog\" site=\"http://127.0.0.1:" + port
                + "\" apiKey=\"k\" spillDir=\"" + spill + "\" maxRetries=\"0\" lingerMillis=\"20\""
                + " connectTimeoutMs=\"200\" spillFsync=\"always\"/>";
        Process first = app(Configs.write("log4j2.xml", Configs.log4j2(appender)), 300, "spill");
        BufferedReader out = new BufferedReader(new InputStreamReader(first.getInputStream(), StandardCharsets.UTF_8));
        String line;
        StringBuilder seen = new StringBuilder();
        while ((line = out.readLine()) != null && !line.startsWith("spilled ")) {
            seen.append(line).append('\n');
        }
        assertTrue(line != null, "the first run spilled its events: " + seen);
        first.destroyForcibly(); // SIGKILL
        first.waitFor(30, TimeUnit.SECONDS);
        Process intakeProcess = new ProcessBuilder(System.getProperty("logship.intake"), "--port",
                String.valueOf(port), "--keep-events").redirectErrorStream(true).start();
        try {
            new BufferedReader(new InputStreamReader(intakeProcess.getInputStream(), StandardCharsets.UTF_8)).readLine();
            Process second = app(Configs.write("log4j2.xml", Configs.log4j2(appender)), 0, "drain", "300");
            String o = all(second);
            assertEquals(0, second.exitValue(), o);
            Intake view = Intake.attach(intakeProcess, "http://127.0.0.1:" + port);
            assertEquals(300, view.events(), o);
            String recent = view.recent();
            Matcher ids = Pattern.compile("\"logship\\.id\":\"([0-9a-f]+)\"").matcher(recent);
            java.util.Set<String> unique = new java.util.HashSet<>();
            int total = 0;
            while (ids.find()) {
                unique.add(ids.group(1));
                total++;
            }
            assertEquals(300, total, "every event carries its id");
            assertEquals(300, unique.size(), "no duplicates");
        } finally {
            intakeProcess.destroyForcibly();
        }
    }
}
