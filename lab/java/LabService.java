// The Java hello service of the Log4j2 lab (`logship-lab --java`, docs/bench/java/):
// an HTTP server (the JDK's com.sun.net.httpserver) whose every GET is answered "hello"
// after logging 3 lines of about 150 bytes through Log4j2 2.19's async loggers
// (Debian's liblog4j2-java, LMAX disruptor, OpenJDK 17), the way a Mule or Spring
// service logs. Which appender the lines go to is the Log4j2 configuration file's
// business (lab/java/log4j2-*.xml): the code is the same in all seven configurations.
//
// Protocol with the lab: prints "listening PORT" on stdout once bound; GET /_lab/stats
// answers {"requests","logged","lost","queued","peak_rss_bytes"} (queued: events in the
// async logger's ring buffer); closing stdin stops it (Log4j2 shut down first, so what
// it still holds is flushed or given up by its appenders, not by the lab).
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.ThreadContext;
import org.apache.logging.log4j.core.async.AsyncLoggerContext;
import org.apache.logging.log4j.core.jmx.RingBufferAdmin;

public class LabService {
    private static final Logger LOG = LogManager.getLogger("com.example.hello.HelloHandler");
    private static final LongAdder REQUESTS = new LongAdder();
    private static final LongAdder LOGGED = new LongAdder();
    private static final AtomicLong SEQ = new AtomicLong();
    private static final byte[] HELLO = "hello\n".getBytes(StandardCharsets.US_ASCII);

    private static long micros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    private static void hello(HttpExchange ex) throws IOException {
        long seq = SEQ.incrementAndGet();
        // t_us: when the request logged, for the lab's ingest-lag figure.
        ThreadContext.put("t_us", Long.toString(micros()));
        ThreadContext.put("requestId", "req-" + seq);
        LOG.info("GET / received from {} user-agent={} request={} routing to the hello handler", "127.0.0.1", "logship-bench", seq);
        LOG.info("hello handler looked up customer={} region={} cache=hit in {} us, building the answer", seq % 9973, "eu-west-1", 42);
        LOG.info("GET / answered status=200 bytes={} request={} duration_us={} keep-alive=true", HELLO.length, seq, 87);
        LOGGED.add(3);
        ThreadContext.clearMap();
        ex.sendResponseHeaders(200, HELLO.length);
        try (OutputStream body = ex.getResponseBody()) {
            body.write(HELLO);
        }
        REQUESTS.increment();
    }

    private static long peakRss() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // unknown: 0
        }
        return 0;
    }

    private static void stats(HttpExchange ex, RingBufferAdmin ring) throws IOException {
        long queued = ring == null ? 0 : ring.getBufferSize() - ring.getRemainingCapacity();
        String json = String.format("{\"requests\":%d,\"logged\":%d,\"lost\":0,\"queued\":%d,\"peak_rss_bytes\":%d}",
                REQUESTS.sum(), LOGGED.sum(), queued, peakRss());
        byte[] bytes = json.getBytes(StandardCharsets.US_ASCII);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, bytes.length);
        try (OutputStream body = ex.getResponseBody()) {
            body.write(bytes);
        }
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        Object ctx = LogManager.getContext(false);
        RingBufferAdmin ring = ctx instanceof AsyncLoggerContext
                ? ((AsyncLoggerContext) ctx).createRingBufferAdmin() : null;
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
        server.setExecutor(Executors.newFixedThreadPool(threads));
        server.createContext("/_lab/stats", ex -> stats(ex, ring));
        server.createContext("/", LabService::hello);
        server.start();
        System.out.println("listening " + server.getAddress().getPort());
        System.out.flush();
        while (System.in.read() != -1) {
            // the lab closes stdin to stop the service
        }
        server.stop(0);
        LogManager.shutdown();
        System.exit(0);
    }
}
