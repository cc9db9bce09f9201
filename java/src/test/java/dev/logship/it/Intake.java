package dev.logship.it;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The in-repo test intake (logship-intake), started as a process on a free port. */
public final class Intake implements AutoCloseable {
    final Process process;
    /** Where it listens, without a trailing slash. */
    public final String url;

    private Intake(Process process, String url) {
        this.process = process;
        this.url = url;
    }

    /** Starts one on a free port, with {@code extra} arguments. */
    public static Intake start(String... extra) throws IOException {
        String bin = System.getProperty("logship.intake");
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(bin, "--port", "0"));
        cmd.addAll(java.util.List.of(extra));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (line == null || !line.startsWith("listening on ")) {
            p.destroyForcibly();
            throw new IOException("intake did not start: " + line);
        }
        String url = line.substring("listening on ".length()).trim();
        while (url.endsWith("/")) {
            url = url.substring(0, url.length() - 1);
        }
        return new Intake(p, url);
    }

    /** An intake already started (on a chosen port). */
    static Intake attach(Process process, String url) {
        return new Intake(process, url);
    }

    String get(String path) throws IOException {
        return call("GET", path);
    }

    String post(String path) throws IOException {
        return call("POST", path);
    }

    private String call(String method, String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL(url + path).openConnection();
        c.setRequestMethod(method);
        c.setConnectTimeout(5000);
        c.setReadTimeout(5000);
        if (method.equals("POST")) {
            c.setDoOutput(true);
            c.getOutputStream().close();
        }
        try (InputStream in = c.getResponseCode() < 400 ? c.getInputStream() : c.getErrorStream()) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            in.transferTo(b);
            return b.toString(StandardCharsets.UTF_8);
        }
    }

    /** Events accepted so far. */
    public long events() throws IOException {
        Matcher m = Pattern.compile("\"events\":(\\d+)").matcher(get("/_intake/stats"));
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** The last events as JSON text ([{"vendor":..,"event":{..}}]). */
    public String recent() throws IOException {
        return get("/_intake/events?n=1000");
    }

    /** Waits (polling the counter, bounded) until at least {@code n} events arrived. */
    public long awaitEvents(long n, long millis) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        long have;
        while ((have = events()) < n && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return have;
    }

    /**
     * Stops it with SIGTERM and waits (bounded) for it to exit, so that what it writes at its
     * exit (the {@code --record-ids} file) is complete; whether it exited.
     */
    public boolean stop() throws InterruptedException {
        process.destroy();
        return process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
