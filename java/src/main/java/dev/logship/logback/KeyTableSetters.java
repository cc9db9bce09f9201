// Generated from the key table (crates/logship/src/config/keys/) by
// crates/logship-jni/tests/generated.rs; do not edit: after adding a key run
// `LOGSHIP_BLESS=1 cargo test -p logship-jni --test generated`.
package dev.logship.logback;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every option of logship's key table as a Logback bean property ({@code <lingerMillis>}),
 * named in camelCase after its key. Values stay text: the native side reads them as the
 * key's type and fails naming the option and the fix.
 */
public abstract class KeyTableSetters extends UnsynchronizedAppenderBase<ILoggingEvent> {
    private final Map<String, String> given = new LinkedHashMap<>();

    /**
     * `ndjson`, `json`, `datadog`, `splunk`, `newrelic`, `dynatrace`, `loki`, `elasticsearch`, `otlp`, `kafka`.
     *
     * @param value the option's value
     */
    public void setVendor(final String value) {
        given.put("vendor", value);
    }

    /**
     * URL to POST to; for a vendor, a URL without a path gets the standard path.
     *
     * @param value the option's value
     */
    public void setEndpoint(final String value) {
        given.put("endpoint", value);
    }

    /**
     * extra request headers (values treated as secrets).
     *
     * @param value the option's value
     */
    public void setHeaders(final String value) {
        given.put("headers", value);
    }

    /**
     * vendor key or token.
     *
     * @param value the option's value
     */
    public void setApiKey(final String value) {
        given.put("apiKey", value);
    }

    /**
     * a file holding the vendor key or token (keeps it out of the command line and the environment).
     *
     * @param value the option's value
     */
    public void setApiKeyFile(final String value) {
        given.put("apiKeyFile", value);
    }

    /**
     * basic-auth user (Elasticsearch/OpenSearch, Loki gateways, Grafana Cloud user id).
     *
     * @param value the option's value
     */
    public void setUsername(final String value) {
        given.put("username", value);
    }

    /**
     * basic-auth password or token (a secret).
     *
     * @param value the option's value
     */
    public void setPassword(final String value) {
        given.put("password", value);
    }

    /**
     * Datadog site (us3, us5, eu, ap1, ap2, uk1, gov, us2.gov).
     *
     * @param value the option's value
     */
    public void setSite(final String value) {
        given.put("site", value);
    }

    /**
     * New Relic region: us, eu, jp, fedramp.
     *
     * @param value the option's value
     */
    public void setRegion(final String value) {
        given.put("region", value);
    }

    /**
     * service name on every event.
     *
     * @param value the option's value
     */
    public void setService(final String value) {
        given.put("service", value);
    }

    /**
     * deployment environment on every event, in each vendor's field (Datadog `env` tag, OTLP `deployment.environment.name`).
     *
     * @param value the option's value
     */
    public void setEnv(final String value) {
        given.put("env", value);
    }

    /**
     * service version on every event, in each vendor's field (Datadog `version` tag, OTLP `service.version`).
     *
     * @param value the option's value
     */
    public void setVersion(final String value) {
        given.put("version", value);
    }

    /**
     * ddsource / source / logtype / log.source.
     *
     * @param value the option's value
     */
    public void setSource(final String value) {
        given.put("source", value);
    }

    /**
     * host field on every event.
     *
     * @param value the option's value
     */
    public void setHostname(final String value) {
        given.put("hostname", value);
    }

    /**
     * tags mapped to each vendor's tag fields.
     *
     * @param value the option's value
     */
    public void setTags(final String value) {
        given.put("tags", value);
    }

    /**
     * span fields at the event's root (`root`, innermost span wins) or as `&lt;span&gt;.&lt;field&gt;` (`prefixed`).
     *
     * @param value the option's value
     */
    public void setSpanFields(final String value) {
        given.put("spanFields", value);
    }

    /**
     * ship each event's id: Elasticsearch `_id` (a replayed event answers 409 instead of being stored twice; off: the cluster picks ids, a little faster to index), other vendors the attribute `logship.id` (OTLP `log.record.uid`, Loki `logship_id`; docs/vendors.md).
     *
     * @param value the option's value
     */
    public void setEventId(final String value) {
        given.put("eventId", value);
    }

    /**
     * largest uncompressed request where the server sets it.
     *
     * @param value the option's value
     */
    public void setMaxRequestBytes(final String value) {
        given.put("maxRequestBytes", value);
    }

    /**
     * flush when a batch has this many events (the vendor's own limit caps it).
     *
     * @param value the option's value
     */
    public void setMaxBatchRecords(final String value) {
        given.put("maxBatchRecords", value);
    }

    /**
     * flush before the encoded, uncompressed body would exceed this.
     *
     * @param value the option's value
     */
    public void setMaxBatchBytes(final String value) {
        given.put("maxBatchBytes", value);
    }

    /**
     * flush when the oldest event in the batch is this old.
     *
     * @param value the option's value
     */
    public void setLingerMillis(final String value) {
        given.put("lingerMillis", value);
    }

    /**
     * events the queue holds.
     *
     * @param value the option's value
     */
    public void setQueueCapacity(final String value) {
        given.put("queueCapacity", value);
    }

    /**
     * bytes held in memory: queued, batched and in flight.
     *
     * @param value the option's value
     */
    public void setQueueMaxBytes(final String value) {
        given.put("queueMaxBytes", value);
    }

    /**
     * when set, a full queue makes the caller wait up to this long (≤ 60 s).
     *
     * @param value the option's value
     */
    public void setBlockTimeoutMs(final String value) {
        given.put("blockTimeoutMs", value);
    }

    /**
     * most requests in flight (one sender thread each, started as the limit grows): the adaptive limit's ceiling.
     *
     * @param value the option's value
     */
    public void setMaxInFlight(final String value) {
        given.put("maxInFlight", value);
    }

    /**
     * adapt HTTP requests in flight to the intake (1 to `max_in_flight`); off, and for `kafka` (no HTTP answers to learn from): fixed at `max_in_flight`.
     *
     * @param value the option's value
     */
    public void setAdaptiveConcurrency(final String value) {
        given.put("adaptiveConcurrency", value);
    }

    /**
     * gzip request bodies.
     *
     * @param value the option's value
     */
    public void setGzip(final String value) {
        given.put("gzip", value);
    }

    /**
     * gzip level 0..=9.
     *
     * @param value the option's value
     */
    public void setGzipLevel(final String value) {
        given.put("gzipLevel", value);
    }

    /**
     * retries of a failed request.
     *
     * @param value the option's value
     */
    public void setMaxRetries(final String value) {
        given.put("maxRetries", value);
    }

    /**
     * first backoff (jittered, doubling).
     *
     * @param value the option's value
     */
    public void setRetryInitialBackoffMs(final String value) {
        given.put("retryInitialBackoffMs", value);
    }

    /**
     * backoff ceiling (also caps `Retry-After`).
     *
     * @param value the option's value
     */
    public void setRetryMaxBackoffMs(final String value) {
        given.put("retryMaxBackoffMs", value);
    }

    /**
     * per connection attempt.
     *
     * @param value the option's value
     */
    public void setConnectTimeoutMs(final String value) {
        given.put("connectTimeoutMs", value);
    }

    /**
     * per request.
     *
     * @param value the option's value
     */
    public void setRequestTimeoutMs(final String value) {
        given.put("requestTimeoutMs", value);
    }

    /**
     * how long shutdown may take.
     *
     * @param value the option's value
     */
    public void setShutdownTimeoutMs(final String value) {
        given.put("shutdownTimeoutMs", value);
    }

    /**
     * larger events are truncated with a marker and counted.
     *
     * @param value the option's value
     */
    public void setMaxEventBytes(final String value) {
        given.put("maxEventBytes", value);
    }

    /**
     * PEM bundle of CAs trusted besides the system's (an internal CA); read at start-up.
     *
     * @param value the option's value
     */
    public void setTlsCaFile(final String value) {
        given.put("tlsCaFile", value);
    }

    /**
     * PEM client certificate chain for mutual TLS (with `tls_client_key`).
     *
     * @param value the option's value
     */
    public void setTlsClientCert(final String value) {
        given.put("tlsClientCert", value);
    }

    /**
     * PEM private key of `tls_client_cert` (its contents are never shown).
     *
     * @param value the option's value
     */
    public void setTlsClientKey(final String value) {
        given.put("tlsClientKey", value);
    }

    /**
     * `false` accepts any certificate: development only, warned about at start-up and in `config check`.
     *
     * @param value the option's value
     */
    public void setTlsVerify(final String value) {
        given.put("tlsVerify", value);
    }

    /**
     * proxy URL (`http://[user:pass@]host:port`) for this pipeline, or `none`; credentials are secrets.
     *
     * @param value the option's value
     */
    public void setProxy(final String value) {
        given.put("proxy", value);
    }

    /**
     * print problems and the shutdown report.
     *
     * @param value the option's value
     */
    public void setReportToStderr(final String value) {
        given.put("reportToStderr", value);
    }

    /**
     * keep undeliverable events on disk and replay them.
     *
     * @param value the option's value
     */
    public void setSpillEnabled(final String value) {
        given.put("spillEnabled", value);
    }

    /**
     * fail start-up when the spill directory cannot be used (locked, unwritable) instead of running without spill.
     *
     * @param value the option's value
     */
    public void setSpillRequired(final String value) {
        given.put("spillRequired", value);
    }

    /**
     * a batch whose request has been out this long also gets a copy in the spill, so a crash cannot lose it.
     *
     * @param value the option's value
     */
    public void setSpillInFlightAfterMs(final String value) {
        given.put("spillInFlightAfterMs", value);
    }

    /**
     * a panic anywhere in the program first delivers what is queued (at most 2 s).
     *
     * @param value the option's value
     */
    public void setFlushOnPanic(final String value) {
        given.put("flushOnPanic", value);
    }

    /**
     * the spill directory (one process at a time; by default the first free of `&lt;service&gt;`, `&lt;service&gt;.2` .. `&lt;service&gt;.8`).
     *
     * @param value the option's value
     */
    public void setSpillDir(final String value) {
        given.put("spillDir", value);
    }

    /**
     * spill size cap.
     *
     * @param value the option's value
     */
    public void setSpillMaxBytes(final String value) {
        given.put("spillMaxBytes", value);
    }

    /**
     * size of one segment file.
     *
     * @param value the option's value
     */
    public void setSpillSegmentBytes(final String value) {
        given.put("spillSegmentBytes", value);
    }

    /**
     * at the cap: `drop_oldest` or `drop_newest`.
     *
     * @param value the option's value
     */
    public void setSpillFull(final String value) {
        given.put("spillFull", value);
    }

    /**
     * `always` syncs every write; `never` leaves it to the OS.
     *
     * @param value the option's value
     */
    public void setSpillFsync(final String value) {
        given.put("spillFsync", value);
    }

    /**
     * Splunk index.
     *
     * @param value the option's value
     */
    public void setSplunkIndex(final String value) {
        given.put("splunkIndex", value);
    }

    /**
     * Splunk sourcetype.
     *
     * @param value the option's value
     */
    public void setSplunkSourcetype(final String value) {
        given.put("splunkSourcetype", value);
    }

    /**
     * Splunk channel (`X-Splunk-Request-Channel`, always sent): a GUID or `auto`.
     *
     * @param value the option's value
     */
    public void setSplunkChannel(final String value) {
        given.put("splunkChannel", value);
    }

    /**
     * Splunk indexer acknowledgement: delivered only once `/services/collector/ack` confirms.
     *
     * @param value the option's value
     */
    public void setSplunkAck(final String value) {
        given.put("splunkAck", value);
    }

    /**
     * with `splunk_ack`: a batch not acknowledged this long after it was accepted is resent.
     *
     * @param value the option's value
     */
    public void setSplunkAckTimeoutMs(final String value) {
        given.put("splunkAckTimeoutMs", value);
    }

    /**
     * Loki `X-Scope-OrgID`.
     *
     * @param value the option's value
     */
    public void setTenantId(final String value) {
        given.put("tenantId", value);
    }

    /**
     * static Loki stream labels (besides `service` and `level`).
     *
     * @param value the option's value
     */
    public void setLokiLabels(final String value) {
        given.put("lokiLabels", value);
    }

    /**
     * Loki: longer lines are truncated and counted.
     *
     * @param value the option's value
     */
    public void setMaxLineBytes(final String value) {
        given.put("maxLineBytes", value);
    }

    /**
     * Elasticsearch/OpenSearch data stream or index; `%Y %m %d %H` expand from each event's UTC timestamp.
     *
     * @param value the option's value
     */
    public void setIndex(final String value) {
        given.put("index", value);
    }

    /**
     * OTLP body: `protobuf` (`application/x-protobuf`) or `json` (`application/json`).
     *
     * @param value the option's value
     */
    public void setOtlpEncoding(final String value) {
        given.put("otlpEncoding", value);
    }

    /**
     * Kafka message key: `none`, `service`, `host`, `level`, `target` or `field:NAME`.
     *
     * @param value the option's value
     */
    public void setKafkaKey(final String value) {
        given.put("kafkaKey", value);
    }

    /**
     * Kafka acks: `all`, `1` or `0` (`1` and `0` need kafka_idempotence = false).
     *
     * @param value the option's value
     */
    public void setKafkaAcks(final String value) {
        given.put("kafkaAcks", value);
    }

    /**
     * Kafka idempotent producer (no duplicates from its own retries).
     *
     * @param value the option's value
     */
    public void setKafkaIdempotence(final String value) {
        given.put("kafkaIdempotence", value);
    }

    /**
     * Kafka compression: `zstd`, `lz4`, `gzip`, `snappy` or `none`.
     *
     * @param value the option's value
     */
    public void setKafkaCompression(final String value) {
        given.put("kafkaCompression", value);
    }

    /**
     * Kafka: largest message (bigger events are cut to fit and counted).
     *
     * @param value the option's value
     */
    public void setKafkaMaxMessageBytes(final String value) {
        given.put("kafkaMaxMessageBytes", value);
    }

    /**
     * Kafka: time one message may take before its delivery counts as failed.
     *
     * @param value the option's value
     */
    public void setKafkaMessageTimeoutMs(final String value) {
        given.put("kafkaMessageTimeoutMs", value);
    }

    /**
     * Kafka: TLS to the brokers (CA and client certificate from the tls_* keys).
     *
     * @param value the option's value
     */
    public void setKafkaTls(final String value) {
        given.put("kafkaTls", value);
    }

    /**
     * Kafka SASL: `none`, `plain`, `scram_sha_256` or `scram_sha_512` (any case, `-` for `_`) (username, password).
     *
     * @param value the option's value
     */
    public void setKafkaSaslMechanism(final String value) {
        given.put("kafkaSaslMechanism", value);
    }

    /**
     * redact secrets and personal data (the rules below) on the batcher's thread, before events are sent or spilled; counted per rule in `stats().redactions`.
     *
     * @param value the option's value
     */
    public void setRedact(final String value) {
        given.put("redact", value);
    }

    /**
     * field names whose value is always redacted (case-insensitive; `-`, `.` and camelCase read as `_`; `db.password` and `accessToken` match by their last part).
     *
     * @param value the option's value
     */
    public void setRedactFields(final String value) {
        given.put("redactFields", value);
    }

    /**
     * built-in value patterns redacted in the message and every text value: `card` (Luhn-checked), `jwt`, `bearer`, `aws_key_id`, `aws_secret`, `private_key` (PEM), `email`.
     *
     * @param value the option's value
     */
    public void setRedactPatterns(final String value) {
        given.put("redactPatterns", value);
    }

    /**
     * regular expressions (Rust `regex` syntax, linear time) whose matches are redacted, counted as `regex1`, `regex2`, ....
     *
     * @param value the option's value
     */
    public void setRedactRegexes(final String value) {
        given.put("redactRegexes", value);
    }

    /**
     * `mask` writes `[redacted:&lt;rule&gt;]`; `hash` writes `[hmac:&lt;16 hex&gt;]` (HMAC-SHA256 under `redact_hash_key`, so values still correlate); `drop` removes the field.
     *
     * @param value the option's value
     */
    public void setRedactAction(final String value) {
        given.put("redactAction", value);
    }

    /**
     * the HMAC key of `hash` (a secret of at least 16 bytes, never shown).
     *
     * @param value the option's value
     */
    public void setRedactHashKey(final String value) {
        given.put("redactHashKey", value);
    }

    /**
     * token bucket per call site and level as `level=rate/burst` (events per second / at once); the first events of a burst ship, the rest are counted and summarised in one event; errors are limited only when listed.
     *
     * @param value the option's value
     */
    public void setBurstLimits(final String value) {
        given.put("burstLimits", value);
    }

    /**
     * call sites the burst table tracks (memory is fixed); further sites share one bucket, still counted.
     *
     * @param value the option's value
     */
    public void setBurstSites(final String value) {
        given.put("burstSites", value);
    }

    /**
     * a burst still going on gets its summary event at least this often (else once quiet for 1 s, or at shutdown).
     *
     * @param value the option's value
     */
    public void setBurstSummaryIntervalMs(final String value) {
        given.put("burstSummaryIntervalMs", value);
    }

    /**
     * fraction of each level kept, as `level=percent`; the rest are counted as sampled out.
     *
     * @param value the option's value
     */
    public void setSampleRates(final String value) {
        given.put("sampleRates", value);
    }

    /**
     * decide sampling by an event's `trace_id`, so a trace's events are all kept or all dropped.
     *
     * @param value the option's value
     */
    public void setSampleByTrace(final String value) {
        given.put("sampleByTrace", value);
    }

    /**
     * one synthetic event (`logship.notice = "dropped"`) per drop episode: how many were dropped or suppressed, why, and when.
     *
     * @param value the option's value
     */
    public void setDropNotices(final String value) {
        given.put("dropNotices", value);
    }

    /**
     * one level's own cap of event bytes per clock hour (UTC), as `level=bytes`; past it that level is dropped (counted), the others go on.
     *
     * @param value the option's value
     */
    public void setBudgetLevelHourBytes(final String value) {
        given.put("budgetLevelHourBytes", value);
    }

    /**
     * one level's own cap of event bytes per UTC day, as `level=bytes`.
     *
     * @param value the option's value
     */
    public void setBudgetLevelDayBytes(final String value) {
        given.put("budgetLevelDayBytes", value);
    }

    /**
     * most event bytes shipped per clock hour (UTC); warns at 80 %, sheds past 100 %.
     *
     * @param value the option's value
     */
    public void setBudgetHourBytes(final String value) {
        given.put("budgetHourBytes", value);
    }

    /**
     * most event bytes shipped per day (UTC); warns at 80 %, sheds past 100 %.
     *
     * @param value the option's value
     */
    public void setBudgetDayBytes(final String value) {
        given.put("budgetDayBytes", value);
    }

    /**
     * most events shipped per clock hour (UTC).
     *
     * @param value the option's value
     */
    public void setBudgetHourEvents(final String value) {
        given.put("budgetHourEvents", value);
    }

    /**
     * most events shipped per day (UTC).
     *
     * @param value the option's value
     */
    public void setBudgetDayEvents(final String value) {
        given.put("budgetDayEvents", value);
    }

    /**
     * past a cap, shed gradually over this share of it (first TRACE/DEBUG, then sample INFO/WARN), then drop all.
     *
     * @param value the option's value
     */
    public void setBudgetOverdraftPercent(final String value) {
        given.put("budgetOverdraftPercent", value);
    }

    /**
     * share of INFO and WARN events kept while a budget samples.
     *
     * @param value the option's value
     */
    public void setBudgetSamplePercent(final String value) {
        given.put("budgetSamplePercent", value);
    }

    /**
     * where the amounts spent survive restarts (a corrupt or missing file starts fresh).
     *
     * @param value the option's value
     */
    public void setBudgetStateFile(final String value) {
        given.put("budgetStateFile", value);
    }

    /**
     * health `stalled` (and `on_stall` fires) when nothing is delivered this long while events arrive.
     *
     * @param value the option's value
     */
    public void setStallAfterMs(final String value) {
        given.put("stallAfterMs", value);
    }

    /**
     * how often counters reach the `metrics` recorder (the `metrics` feature).
     *
     * @param value the option's value
     */
    public void setMetricsIntervalMs(final String value) {
        given.put("metricsIntervalMs", value);
    }

    /** Adds the options given to {@code out} as name, value pairs. */
    protected void givenAttributes(final List<String> out) {
        for (Map.Entry<String, String> e : given.entrySet()) {
            if (e.getValue() != null) {
                out.add(e.getKey());
                out.add(e.getValue());
            }
        }
    }
}
