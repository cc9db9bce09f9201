// Generated from the key table (crates/logship/src/config/keys/) by
// crates/logship-jni/tests/generated.rs; do not edit: after adding a key run
// `LOGSHIP_BLESS=1 cargo test -p logship-jni --test generated`.
package dev.logship.log4j2;

import java.util.List;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.plugins.PluginBuilderAttribute;

/**
 * Every option of logship's key table as a Log4j2 attribute, named in camelCase after
 * its key. Values stay text here (lookups already resolved by Log4j2): the native side
 * reads them as the key's type and fails naming the attribute and the fix.
 */
public abstract class KeyTableAttributes<B extends KeyTableAttributes<B>>
        extends AbstractAppender.Builder<B> {
    /** `ndjson`, `json`, `datadog`, `splunk`, `newrelic`, `dynatrace`, `loki`, `elasticsearch`, `otlp`, `kafka`. */
    @PluginBuilderAttribute("vendor")
    private String vendor;

    /**
     * Sets vendor: `ndjson`, `json`, `datadog`, `splunk`, `newrelic`, `dynatrace`, `loki`, `elasticsearch`, `otlp`, `kafka`.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setVendor(final String value) {
        this.vendor = value;
        return asBuilder();
    }

    /** URL to POST to; for a vendor, a URL without a path gets the standard path. */
    @PluginBuilderAttribute("endpoint")
    private String endpoint;

    /**
     * Sets endpoint: URL to POST to; for a vendor, a URL without a path gets the standard path.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setEndpoint(final String value) {
        this.endpoint = value;
        return asBuilder();
    }

    /** extra request headers (values treated as secrets). */
    @PluginBuilderAttribute("headers")
    private String headers;

    /**
     * Sets headers: extra request headers (values treated as secrets).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setHeaders(final String value) {
        this.headers = value;
        return asBuilder();
    }

    /** vendor key or token. */
    @PluginBuilderAttribute("apiKey")
    private String apiKey;

    /**
     * Sets apiKey: vendor key or token.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setApiKey(final String value) {
        this.apiKey = value;
        return asBuilder();
    }

    /** a file holding the vendor key or token (keeps it out of the command line and the environment). */
    @PluginBuilderAttribute("apiKeyFile")
    private String apiKeyFile;

    /**
     * Sets apiKeyFile: a file holding the vendor key or token (keeps it out of the command line and the environment).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setApiKeyFile(final String value) {
        this.apiKeyFile = value;
        return asBuilder();
    }

    /** basic-auth user (Elasticsearch/OpenSearch, Loki gateways, Grafana Cloud user id). */
    @PluginBuilderAttribute("username")
    private String username;

    /**
     * Sets username: basic-auth user (Elasticsearch/OpenSearch, Loki gateways, Grafana Cloud user id).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setUsername(final String value) {
        this.username = value;
        return asBuilder();
    }

    /** basic-auth password or token (a secret). */
    @PluginBuilderAttribute("password")
    private String password;

    /**
     * Sets password: basic-auth password or token (a secret).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setPassword(final String value) {
        this.password = value;
        return asBuilder();
    }

    /** Datadog site (us3, us5, eu, ap1, ap2, uk1, gov, us2.gov). */
    @PluginBuilderAttribute("site")
    private String site;

    /**
     * Sets site: Datadog site (us3, us5, eu, ap1, ap2, uk1, gov, us2.gov).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSite(final String value) {
        this.site = value;
        return asBuilder();
    }

    /** New Relic region: us, eu, jp, fedramp. */
    @PluginBuilderAttribute("region")
    private String region;

    /**
     * Sets region: New Relic region: us, eu, jp, fedramp.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setRegion(final String value) {
        this.region = value;
        return asBuilder();
    }

    /** service name on every event. */
    @PluginBuilderAttribute("service")
    private String service;

    /**
     * Sets service: service name on every event.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setService(final String value) {
        this.service = value;
        return asBuilder();
    }

    /** deployment environment on every event, in each vendor's field (Datadog `env` tag, OTLP `deployment.environment.name`). */
    @PluginBuilderAttribute("env")
    private String env;

    /**
     * Sets env: deployment environment on every event, in each vendor's field (Datadog `env` tag, OTLP `deployment.environment.name`).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setEnv(final String value) {
        this.env = value;
        return asBuilder();
    }

    /** service version on every event, in each vendor's field (Datadog `version` tag, OTLP `service.version`). */
    @PluginBuilderAttribute("version")
    private String version;

    /**
     * Sets version: service version on every event, in each vendor's field (Datadog `version` tag, OTLP `service.version`).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setVersion(final String value) {
        this.version = value;
        return asBuilder();
    }

    /** ddsource / source / logtype / log.source. */
    @PluginBuilderAttribute("source")
    private String source;

    /**
     * Sets source: ddsource / source / logtype / log.source.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSource(final String value) {
        this.source = value;
        return asBuilder();
    }

    /** host field on every event. */
    @PluginBuilderAttribute("hostname")
    private String hostname;

    /**
     * Sets hostname: host field on every event.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setHostname(final String value) {
        this.hostname = value;
        return asBuilder();
    }

    /** tags mapped to each vendor's tag fields. */
    @PluginBuilderAttribute("tags")
    private String tags;

    /**
     * Sets tags: tags mapped to each vendor's tag fields.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setTags(final String value) {
        this.tags = value;
        return asBuilder();
    }

    /** span fields at the event's root (`root`, innermost span wins) or as `&lt;span&gt;.&lt;field&gt;` (`prefixed`). */
    @PluginBuilderAttribute("spanFields")
    private String spanFields;

    /**
     * Sets spanFields: span fields at the event's root (`root`, innermost span wins) or as `&lt;span&gt;.&lt;field&gt;` (`prefixed`).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSpanFields(final String value) {
        this.spanFields = value;
        return asBuilder();
    }

    /** ship each event's id: Elasticsearch `_id` (a replayed event answers 409 instead of being stored twice; off: the cluster picks ids, a little faster to index), other vendors the attribute `logship.id` (OTLP `log.record.uid`, Loki `logship_id`; docs/vendors.md). */
    @PluginBuilderAttribute("eventId")
    private String eventId;

    /**
     * Sets eventId: ship each event's id: Elasticsearch `_id` (a replayed event answers 409 instead of being stored twice; off: the cluster picks ids, a little faster to index), other vendors the attribute `logship.id` (OTLP `log.record.uid`, Loki `logship_id`; docs/vendors.md).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setEventId(final String value) {
        this.eventId = value;
        return asBuilder();
    }

    /** largest uncompressed request where the server sets it. */
    @PluginBuilderAttribute("maxRequestBytes")
    private String maxRequestBytes;

    /**
     * Sets maxRequestBytes: largest uncompressed request where the server sets it.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setMaxRequestBytes(final String value) {
        this.maxRequestBytes = value;
        return asBuilder();
    }

    /** flush when a batch has this many events (the vendor's own limit caps it). */
    @PluginBuilderAttribute("maxBatchRecords")
    private String maxBatchRecords;

    /**
     * Sets maxBatchRecords: flush when a batch has this many events (the vendor's own limit caps it).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setMaxBatchRecords(final String value) {
        this.maxBatchRecords = value;
        return asBuilder();
    }

    /** flush before the encoded, uncompressed body would exceed this. */
    @PluginBuilderAttribute("maxBatchBytes")
    private String maxBatchBytes;

    /**
     * Sets maxBatchBytes: flush before the encoded, uncompressed body would exceed this.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setMaxBatchBytes(final String value) {
        this.maxBatchBytes = value;
        return asBuilder();
    }

    /** flush when the oldest event in the batch is this old. */
    @PluginBuilderAttribute("lingerMillis")
    private String lingerMillis;

    /**
     * Sets lingerMillis: flush when the oldest event in the batch is this old.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setLingerMillis(final String value) {
        this.lingerMillis = value;
        return asBuilder();
    }

    /** events the queue holds. */
    @PluginBuilderAttribute("queueCapacity")
    private String queueCapacity;

    /**
     * Sets queueCapacity: events the queue holds.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setQueueCapacity(final String value) {
        this.queueCapacity = value;
        return asBuilder();
    }

    /** bytes held in memory: queued, batched and in flight. */
    @PluginBuilderAttribute("queueMaxBytes")
    private String queueMaxBytes;

    /**
     * Sets queueMaxBytes: bytes held in memory: queued, batched and in flight.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setQueueMaxBytes(final String value) {
        this.queueMaxBytes = value;
        return asBuilder();
    }

    /** when set, a full queue makes the caller wait up to this long (≤ 60 s). */
    @PluginBuilderAttribute("blockTimeoutMs")
    private String blockTimeoutMs;

    /**
     * Sets blockTimeoutMs: when set, a full queue makes the caller wait up to this long (≤ 60 s).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setBlockTimeoutMs(final String value) {
        this.blockTimeoutMs = value;
        return asBuilder();
    }

    /** most requests in flight (one sender thread each, started as the limit grows): the adaptive limit's ceiling. */
    @PluginBuilderAttribute("maxInFlight")
    private String maxInFlight;

    /**
     * Sets maxInFlight: most requests in flight (one sender thread each, started as the limit grows): the adaptive limit's ceiling.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setMaxInFlight(final String value) {
        this.maxInFlight = value;
        return asBuilder();
    }

    /** adapt HTTP requests in flight to the intake (1 to `max_in_flight`); off, and for `kafka` (no HTTP answers to learn from): fixed at `max_in_flight`. */
    @PluginBuilderAttribute("adaptiveConcurrency")
    private String adaptiveConcurrency;

    /**
     * Sets adaptiveConcurrency: adapt HTTP requests in flight to the intake (1 to `max_in_flight`); off, and for `kafka` (no HTTP answers to learn from): fixed at `max_in_flight`.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setAdaptiveConcurrency(final String value) {
        this.adaptiveConcurrency = value;
        return asBuilder();
    }

    /** gzip request bodies. */
    @PluginBuilderAttribute("gzip")
    private String gzip;

    /**
     * Sets gzip: gzip request bodies.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setGzip(final String value) {
        this.gzip = value;
        return asBuilder();
    }

    /** gzip level 0..=9. */
    @PluginBuilderAttribute("gzipLevel")
    private String gzipLevel;

    /**
     * Sets gzipLevel: gzip level 0..=9.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setGzipLevel(final String value) {
        this.gzipLevel = value;
        return asBuilder();
    }

    /** retries of a failed request. */
    @PluginBuilderAttribute("maxRetries")
    private String maxRetries;

    /**
     * Sets maxRetries: retries of a failed request.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setMaxRetries(final String value) {
        this.maxRetries = value;
        return asBuilder();
    }

    /** first backoff (jittered, doubling). */
    @PluginBuilderAttribute("retryInitialBackoffMs")
    private String retryInitialBackoffMs;

    /**
     * Sets retryInitialBackoffMs: first backoff (jittered, doubling).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setRetryInitialBackoffMs(final String value) {
        this.retryInitialBackoffMs = value;
        return asBuilder();
    }

    /** backoff ceiling (also caps `Retry-After`). */
    @PluginBuilderAttribute("retryMaxBackoffMs")
    private String retryMaxBackoffMs;

    /**
     * Sets retryMaxBackoffMs: backoff ceiling (also caps `Retry-After`).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setRetryMaxBackoffMs(final String value) {
        this.retryMaxBackoffMs = value;
        return asBuilder();
    }

    /** per connection attempt. */
    @PluginBuilderAttribute("connectTimeoutMs")
    private String connectTimeoutMs;

    /**
     * Sets connectTimeoutMs: per connection attempt.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setConnectTimeoutMs(final String value) {
        this.connectTimeoutMs = value;
        return asBuilder();
    }

    /** per request. */
    @PluginBuilderAttribute("requestTimeoutMs")
    private String requestTimeoutMs;

    /**
     * Sets requestTimeoutMs: per request.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setRequestTimeoutMs(final String value) {
        this.requestTimeoutMs = value;
        return asBuilder();
    }

    /** how long shutdown may take. */
    @PluginBuilderAttribute("shutdownTimeoutMs")
    private String shutdownTimeoutMs;

    /**
     * Sets shutdownTimeoutMs: how long shutdown may take.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setShutdownTimeoutMs(final String value) {
        this.shutdownTimeoutMs = value;
        return asBuilder();
    }

    /** larger events are truncated with a marker and counted. */
    @PluginBuilderAttribute("maxEventBytes")
    private String maxEventBytes;

    /**
     * Sets maxEventBytes: larger events are truncated with a marker and counted.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setMaxEventBytes(final String value) {
        this.maxEventBytes = value;
        return asBuilder();
    }

    /** PEM bundle of CAs trusted besides the system's (an internal CA); read at start-up. */
    @PluginBuilderAttribute("tlsCaFile")
    private String tlsCaFile;

    /**
     * Sets tlsCaFile: PEM bundle of CAs trusted besides the system's (an internal CA); read at start-up.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setTlsCaFile(final String value) {
        this.tlsCaFile = value;
        return asBuilder();
    }

    /** PEM client certificate chain for mutual TLS (with `tls_client_key`). */
    @PluginBuilderAttribute("tlsClientCert")
    private String tlsClientCert;

    /**
     * Sets tlsClientCert: PEM client certificate chain for mutual TLS (with `tls_client_key`).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setTlsClientCert(final String value) {
        this.tlsClientCert = value;
        return asBuilder();
    }

    /** PEM private key of `tls_client_cert` (its contents are never shown). */
    @PluginBuilderAttribute("tlsClientKey")
    private String tlsClientKey;

    /**
     * Sets tlsClientKey: PEM private key of `tls_client_cert` (its contents are never shown).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setTlsClientKey(final String value) {
        this.tlsClientKey = value;
        return asBuilder();
    }

    /** `false` accepts any certificate: development only, warned about at start-up and in `config check`. */
    @PluginBuilderAttribute("tlsVerify")
    private String tlsVerify;

    /**
     * Sets tlsVerify: `false` accepts any certificate: development only, warned about at start-up and in `config check`.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setTlsVerify(final String value) {
        this.tlsVerify = value;
        return asBuilder();
    }

    /** proxy URL (`http://[user:pass@]host:port`) for this pipeline, or `none`; credentials are secrets. */
    @PluginBuilderAttribute("proxy")
    private String proxy;

    /**
     * Sets proxy: proxy URL (`http://[user:pass@]host:port`) for this pipeline, or `none`; credentials are secrets.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setProxy(final String value) {
        this.proxy = value;
        return asBuilder();
    }

    /** print problems and the shutdown report. */
    @PluginBuilderAttribute("reportToStderr")
    private String reportToStderr;

    /**
     * Sets reportToStderr: print problems and the shutdown report.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setReportToStderr(final String value) {
        this.reportToStderr = value;
        return asBuilder();
    }

    /** keep undeliverable events on disk and replay them. */
    @PluginBuilderAttribute("spillEnabled")
    private String spillEnabled;

    /**
     * Sets spillEnabled: keep undeliverable events on disk and replay them.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSpillEnabled(final String value) {
        this.spillEnabled = value;
        return asBuilder();
    }

    /** fail start-up when the spill directory cannot be used (locked, unwritable) instead of running without spill. */
    @PluginBuilderAttribute("spillRequired")
    private String spillRequired;

    /**
     * Sets spillRequired: fail start-up when the spill directory cannot be used (locked, unwritable) instead of running without spill.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSpillRequired(final String value) {
        this.spillRequired = value;
        return asBuilder();
    }

    /** a batch whose request has been out this long also gets a copy in the spill, so a crash cannot lose it. */
    @PluginBuilderAttribute("spillInFlightAfterMs")
    private String spillInFlightAfterMs;

    /**
     * Sets spillInFlightAfterMs: a batch whose request has been out this long also gets a copy in the spill, so a crash cannot lose it.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSpillInFlightAfterMs(final String value) {
        this.spillInFlightAfterMs = value;
        return asBuilder();
    }

    /** a panic anywhere in the program first delivers what is queued (at most 2 s). */
    @PluginBuilderAttribute("flushOnPanic")
    private String flushOnPanic;

    /**
     * Sets flushOnPanic: a panic anywhere in the program first delivers what is queued (at most 2 s).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setFlushOnPanic(final String value) {
        this.flushOnPanic = value;
        return asBuilder();
    }

    /** the spill directory (one process at a time; by default the first free of `&lt;service&gt;`, `&lt;service&gt;.2` .. `&lt;service&gt;.8`). */
    @PluginBuilderAttribute("spillDir")
    private String spillDir;

    /**
     * Sets spillDir: the spill directory (one process at a time; by default the first free of `&lt;service&gt;`, `&lt;service&gt;.2` .. `&lt;service&gt;.8`).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSpillDir(final String value) {
        this.spillDir = value;
        return asBuilder();
    }

    /** spill size cap. */
    @PluginBuilderAttribute("spillMaxBytes")
    private String spillMaxBytes;

    /**
     * Sets spillMaxBytes: spill size cap.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSpillMaxBytes(final String value) {
        this.spillMaxBytes = value;
        return asBuilder();
    }

    /** size of one segment file. */
    @PluginBuilderAttribute("spillSegmentBytes")
    private String spillSegmentBytes;

    /**
     * Sets spillSegmentBytes: size of one segment file.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSpillSegmentBytes(final String value) {
        this.spillSegmentBytes = value;
        return asBuilder();
    }

    /** at the cap: `drop_oldest` or `drop_newest`. */
    @PluginBuilderAttribute("spillFull")
    private String spillFull;

    /**
     * Sets spillFull: at the cap: `drop_oldest` or `drop_newest`.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSpillFull(final String value) {
        this.spillFull = value;
        return asBuilder();
    }

    /** `always` syncs every write; `never` leaves it to the OS. */
    @PluginBuilderAttribute("spillFsync")
    private String spillFsync;

    /**
     * Sets spillFsync: `always` syncs every write; `never` leaves it to the OS.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSpillFsync(final String value) {
        this.spillFsync = value;
        return asBuilder();
    }

    /** Splunk index. */
    @PluginBuilderAttribute("splunkIndex")
    private String splunkIndex;

    /**
     * Sets splunkIndex: Splunk index.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSplunkIndex(final String value) {
        this.splunkIndex = value;
        return asBuilder();
    }

    /** Splunk sourcetype. */
    @PluginBuilderAttribute("splunkSourcetype")
    private String splunkSourcetype;

    /**
     * Sets splunkSourcetype: Splunk sourcetype.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSplunkSourcetype(final String value) {
        this.splunkSourcetype = value;
        return asBuilder();
    }

    /** Splunk channel (`X-Splunk-Request-Channel`, always sent): a GUID or `auto`. */
    @PluginBuilderAttribute("splunkChannel")
    private String splunkChannel;

    /**
     * Sets splunkChannel: Splunk channel (`X-Splunk-Request-Channel`, always sent): a GUID or `auto`.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSplunkChannel(final String value) {
        this.splunkChannel = value;
        return asBuilder();
    }

    /** Splunk indexer acknowledgement: delivered only once `/services/collector/ack` confirms. */
    @PluginBuilderAttribute("splunkAck")
    private String splunkAck;

    /**
     * Sets splunkAck: Splunk indexer acknowledgement: delivered only once `/services/collector/ack` confirms.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSplunkAck(final String value) {
        this.splunkAck = value;
        return asBuilder();
    }

    /** with `splunk_ack`: a batch not acknowledged this long after it was accepted is resent. */
    @PluginBuilderAttribute("splunkAckTimeoutMs")
    private String splunkAckTimeoutMs;

    /**
     * Sets splunkAckTimeoutMs: with `splunk_ack`: a batch not acknowledged this long after it was accepted is resent.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSplunkAckTimeoutMs(final String value) {
        this.splunkAckTimeoutMs = value;
        return asBuilder();
    }

    /** Loki `X-Scope-OrgID`. */
    @PluginBuilderAttribute("tenantId")
    private String tenantId;

    /**
     * Sets tenantId: Loki `X-Scope-OrgID`.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setTenantId(final String value) {
        this.tenantId = value;
        return asBuilder();
    }

    /** static Loki stream labels (besides `service` and `level`). */
    @PluginBuilderAttribute("lokiLabels")
    private String lokiLabels;

    /**
     * Sets lokiLabels: static Loki stream labels (besides `service` and `level`).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setLokiLabels(final String value) {
        this.lokiLabels = value;
        return asBuilder();
    }

    /** Loki: longer lines are truncated and counted. */
    @PluginBuilderAttribute("maxLineBytes")
    private String maxLineBytes;

    /**
     * Sets maxLineBytes: Loki: longer lines are truncated and counted.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setMaxLineBytes(final String value) {
        this.maxLineBytes = value;
        return asBuilder();
    }

    /** Elasticsearch/OpenSearch data stream or index; `%Y %m %d %H` expand from each event's UTC timestamp. */
    @PluginBuilderAttribute("index")
    private String index;

    /**
     * Sets index: Elasticsearch/OpenSearch data stream or index; `%Y %m %d %H` expand from each event's UTC timestamp.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setIndex(final String value) {
        this.index = value;
        return asBuilder();
    }

    /** OTLP body: `protobuf` (`application/x-protobuf`) or `json` (`application/json`). */
    @PluginBuilderAttribute("otlpEncoding")
    private String otlpEncoding;

    /**
     * Sets otlpEncoding: OTLP body: `protobuf` (`application/x-protobuf`) or `json` (`application/json`).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setOtlpEncoding(final String value) {
        this.otlpEncoding = value;
        return asBuilder();
    }

    /** Kafka message key: `none`, `service`, `host`, `level`, `target` or `field:NAME`. */
    @PluginBuilderAttribute("kafkaKey")
    private String kafkaKey;

    /**
     * Sets kafkaKey: Kafka message key: `none`, `service`, `host`, `level`, `target` or `field:NAME`.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setKafkaKey(final String value) {
        this.kafkaKey = value;
        return asBuilder();
    }

    /** Kafka acks: `all`, `1` or `0` (`1` and `0` need kafka_idempotence = false). */
    @PluginBuilderAttribute("kafkaAcks")
    private String kafkaAcks;

    /**
     * Sets kafkaAcks: Kafka acks: `all`, `1` or `0` (`1` and `0` need kafka_idempotence = false).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setKafkaAcks(final String value) {
        this.kafkaAcks = value;
        return asBuilder();
    }

    /** Kafka idempotent producer (no duplicates from its own retries). */
    @PluginBuilderAttribute("kafkaIdempotence")
    private String kafkaIdempotence;

    /**
     * Sets kafkaIdempotence: Kafka idempotent producer (no duplicates from its own retries).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setKafkaIdempotence(final String value) {
        this.kafkaIdempotence = value;
        return asBuilder();
    }

    /** Kafka compression: `zstd`, `lz4`, `gzip`, `snappy` or `none`. */
    @PluginBuilderAttribute("kafkaCompression")
    private String kafkaCompression;

    /**
     * Sets kafkaCompression: Kafka compression: `zstd`, `lz4`, `gzip`, `snappy` or `none`.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setKafkaCompression(final String value) {
        this.kafkaCompression = value;
        return asBuilder();
    }

    /** Kafka: largest message (bigger events are cut to fit and counted). */
    @PluginBuilderAttribute("kafkaMaxMessageBytes")
    private String kafkaMaxMessageBytes;

    /**
     * Sets kafkaMaxMessageBytes: Kafka: largest message (bigger events are cut to fit and counted).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setKafkaMaxMessageBytes(final String value) {
        this.kafkaMaxMessageBytes = value;
        return asBuilder();
    }

    /** Kafka: time one message may take before its delivery counts as failed. */
    @PluginBuilderAttribute("kafkaMessageTimeoutMs")
    private String kafkaMessageTimeoutMs;

    /**
     * Sets kafkaMessageTimeoutMs: Kafka: time one message may take before its delivery counts as failed.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setKafkaMessageTimeoutMs(final String value) {
        this.kafkaMessageTimeoutMs = value;
        return asBuilder();
    }

    /** Kafka: TLS to the brokers (CA and client certificate from the tls_* keys). */
    @PluginBuilderAttribute("kafkaTls")
    private String kafkaTls;

    /**
     * Sets kafkaTls: Kafka: TLS to the brokers (CA and client certificate from the tls_* keys).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setKafkaTls(final String value) {
        this.kafkaTls = value;
        return asBuilder();
    }

    /** Kafka SASL: `none`, `plain`, `scram_sha_256` or `scram_sha_512` (any case, `-` for `_`) (username, password). */
    @PluginBuilderAttribute("kafkaSaslMechanism")
    private String kafkaSaslMechanism;

    /**
     * Sets kafkaSaslMechanism: Kafka SASL: `none`, `plain`, `scram_sha_256` or `scram_sha_512` (any case, `-` for `_`) (username, password).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setKafkaSaslMechanism(final String value) {
        this.kafkaSaslMechanism = value;
        return asBuilder();
    }

    /** redact secrets and personal data (the rules below) on the batcher's thread, before events are sent or spilled; counted per rule in `stats().redactions`. */
    @PluginBuilderAttribute("redact")
    private String redact;

    /**
     * Sets redact: redact secrets and personal data (the rules below) on the batcher's thread, before events are sent or spilled; counted per rule in `stats().redactions`.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setRedact(final String value) {
        this.redact = value;
        return asBuilder();
    }

    /** field names whose value is always redacted (case-insensitive; `-`, `.` and camelCase read as `_`; `db.password` and `accessToken` match by their last part). */
    @PluginBuilderAttribute("redactFields")
    private String redactFields;

    /**
     * Sets redactFields: field names whose value is always redacted (case-insensitive; `-`, `.` and camelCase read as `_`; `db.password` and `accessToken` match by their last part).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setRedactFields(final String value) {
        this.redactFields = value;
        return asBuilder();
    }

    /** built-in value patterns redacted in the message and every text value: `card` (Luhn-checked), `jwt`, `bearer`, `aws_key_id`, `aws_secret`, `private_key` (PEM), `email`. */
    @PluginBuilderAttribute("redactPatterns")
    private String redactPatterns;

    /**
     * Sets redactPatterns: built-in value patterns redacted in the message and every text value: `card` (Luhn-checked), `jwt`, `bearer`, `aws_key_id`, `aws_secret`, `private_key` (PEM), `email`.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setRedactPatterns(final String value) {
        this.redactPatterns = value;
        return asBuilder();
    }

    /** regular expressions (Rust `regex` syntax, linear time) whose matches are redacted, counted as `regex1`, `regex2`, .... */
    @PluginBuilderAttribute("redactRegexes")
    private String redactRegexes;

    /**
     * Sets redactRegexes: regular expressions (Rust `regex` syntax, linear time) whose matches are redacted, counted as `regex1`, `regex2`, ....
     *
     * @param value the option's value
     * @return this builder
     */
    public B setRedactRegexes(final String value) {
        this.redactRegexes = value;
        return asBuilder();
    }

    /** `mask` writes `[redacted:&lt;rule&gt;]`; `hash` writes `[hmac:&lt;16 hex&gt;]` (HMAC-SHA256 under `redact_hash_key`, so values still correlate); `drop` removes the field. */
    @PluginBuilderAttribute("redactAction")
    private String redactAction;

    /**
     * Sets redactAction: `mask` writes `[redacted:&lt;rule&gt;]`; `hash` writes `[hmac:&lt;16 hex&gt;]` (HMAC-SHA256 under `redact_hash_key`, so values still correlate); `drop` removes the field.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setRedactAction(final String value) {
        this.redactAction = value;
        return asBuilder();
    }

    /** the HMAC key of `hash` (a secret of at least 16 bytes, never shown). */
    @PluginBuilderAttribute("redactHashKey")
    private String redactHashKey;

    /**
     * Sets redactHashKey: the HMAC key of `hash` (a secret of at least 16 bytes, never shown).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setRedactHashKey(final String value) {
        this.redactHashKey = value;
        return asBuilder();
    }

    /** token bucket per call site and level as `level=rate/burst` (events per second / at once); the first events of a burst ship, the rest are counted and summarised in one event; errors are limited only when listed. */
    @PluginBuilderAttribute("burstLimits")
    private String burstLimits;

    /**
     * Sets burstLimits: token bucket per call site and level as `level=rate/burst` (events per second / at once); the first events of a burst ship, the rest are counted and summarised in one event; errors are limited only when listed.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setBurstLimits(final String value) {
        this.burstLimits = value;
        return asBuilder();
    }

    /** call sites the burst table tracks (memory is fixed); further sites share one bucket, still counted. */
    @PluginBuilderAttribute("burstSites")
    private String burstSites;

    /**
     * Sets burstSites: call sites the burst table tracks (memory is fixed); further sites share one bucket, still counted.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setBurstSites(final String value) {
        this.burstSites = value;
        return asBuilder();
    }

    /** a burst still going on gets its summary event at least this often (else once quiet for 1 s, or at shutdown). */
    @PluginBuilderAttribute("burstSummaryIntervalMs")
    private String burstSummaryIntervalMs;

    /**
     * Sets burstSummaryIntervalMs: a burst still going on gets its summary event at least this often (else once quiet for 1 s, or at shutdown).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setBurstSummaryIntervalMs(final String value) {
        this.burstSummaryIntervalMs = value;
        return asBuilder();
    }

    /** fraction of each level kept, as `level=percent`; the rest are counted as sampled out. */
    @PluginBuilderAttribute("sampleRates")
    private String sampleRates;

    /**
     * Sets sampleRates: fraction of each level kept, as `level=percent`; the rest are counted as sampled out.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSampleRates(final String value) {
        this.sampleRates = value;
        return asBuilder();
    }

    /** decide sampling by an event's `trace_id`, so a trace's events are all kept or all dropped. */
    @PluginBuilderAttribute("sampleByTrace")
    private String sampleByTrace;

    /**
     * Sets sampleByTrace: decide sampling by an event's `trace_id`, so a trace's events are all kept or all dropped.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setSampleByTrace(final String value) {
        this.sampleByTrace = value;
        return asBuilder();
    }

    /** one synthetic event (`logship.notice = "dropped"`) per drop episode: how many were dropped or suppressed, why, and when. */
    @PluginBuilderAttribute("dropNotices")
    private String dropNotices;

    /**
     * Sets dropNotices: one synthetic event (`logship.notice = "dropped"`) per drop episode: how many were dropped or suppressed, why, and when.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setDropNotices(final String value) {
        this.dropNotices = value;
        return asBuilder();
    }

    /** one level's own cap of event bytes per clock hour (UTC), as `level=bytes`; past it that level is dropped (counted), the others go on. */
    @PluginBuilderAttribute("budgetLevelHourBytes")
    private String budgetLevelHourBytes;

    /**
     * Sets budgetLevelHourBytes: one level's own cap of event bytes per clock hour (UTC), as `level=bytes`; past it that level is dropped (counted), the others go on.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setBudgetLevelHourBytes(final String value) {
        this.budgetLevelHourBytes = value;
        return asBuilder();
    }

    /** one level's own cap of event bytes per UTC day, as `level=bytes`. */
    @PluginBuilderAttribute("budgetLevelDayBytes")
    private String budgetLevelDayBytes;

    /**
     * Sets budgetLevelDayBytes: one level's own cap of event bytes per UTC day, as `level=bytes`.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setBudgetLevelDayBytes(final String value) {
        this.budgetLevelDayBytes = value;
        return asBuilder();
    }

    /** most event bytes shipped per clock hour (UTC); warns at 80 %, sheds past 100 %. */
    @PluginBuilderAttribute("budgetHourBytes")
    private String budgetHourBytes;

    /**
     * Sets budgetHourBytes: most event bytes shipped per clock hour (UTC); warns at 80 %, sheds past 100 %.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setBudgetHourBytes(final String value) {
        this.budgetHourBytes = value;
        return asBuilder();
    }

    /** most event bytes shipped per day (UTC); warns at 80 %, sheds past 100 %. */
    @PluginBuilderAttribute("budgetDayBytes")
    private String budgetDayBytes;

    /**
     * Sets budgetDayBytes: most event bytes shipped per day (UTC); warns at 80 %, sheds past 100 %.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setBudgetDayBytes(final String value) {
        this.budgetDayBytes = value;
        return asBuilder();
    }

    /** most events shipped per clock hour (UTC). */
    @PluginBuilderAttribute("budgetHourEvents")
    private String budgetHourEvents;

    /**
     * Sets budgetHourEvents: most events shipped per clock hour (UTC).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setBudgetHourEvents(final String value) {
        this.budgetHourEvents = value;
        return asBuilder();
    }

    /** most events shipped per day (UTC). */
    @PluginBuilderAttribute("budgetDayEvents")
    private String budgetDayEvents;

    /**
     * Sets budgetDayEvents: most events shipped per day (UTC).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setBudgetDayEvents(final String value) {
        this.budgetDayEvents = value;
        return asBuilder();
    }

    /** past a cap, shed gradually over this share of it (first TRACE/DEBUG, then sample INFO/WARN), then drop all. */
    @PluginBuilderAttribute("budgetOverdraftPercent")
    private String budgetOverdraftPercent;

    /**
     * Sets budgetOverdraftPercent: past a cap, shed gradually over this share of it (first TRACE/DEBUG, then sample INFO/WARN), then drop all.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setBudgetOverdraftPercent(final String value) {
        this.budgetOverdraftPercent = value;
        return asBuilder();
    }

    /** share of INFO and WARN events kept while a budget samples. */
    @PluginBuilderAttribute("budgetSamplePercent")
    private String budgetSamplePercent;

    /**
     * Sets budgetSamplePercent: share of INFO and WARN events kept while a budget samples.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setBudgetSamplePercent(final String value) {
        this.budgetSamplePercent = value;
        return asBuilder();
    }

    /** where the amounts spent survive restarts (a corrupt or missing file starts fresh). */
    @PluginBuilderAttribute("budgetStateFile")
    private String budgetStateFile;

    /**
     * Sets budgetStateFile: where the amounts spent survive restarts (a corrupt or missing file starts fresh).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setBudgetStateFile(final String value) {
        this.budgetStateFile = value;
        return asBuilder();
    }

    /** health `stalled` (and `on_stall` fires) when nothing is delivered this long while events arrive. */
    @PluginBuilderAttribute("stallAfterMs")
    private String stallAfterMs;

    /**
     * Sets stallAfterMs: health `stalled` (and `on_stall` fires) when nothing is delivered this long while events arrive.
     *
     * @param value the option's value
     * @return this builder
     */
    public B setStallAfterMs(final String value) {
        this.stallAfterMs = value;
        return asBuilder();
    }

    /** how often counters reach the `metrics` recorder (the `metrics` feature). */
    @PluginBuilderAttribute("metricsIntervalMs")
    private String metricsIntervalMs;

    /**
     * Sets metricsIntervalMs: how often counters reach the `metrics` recorder (the `metrics` feature).
     *
     * @param value the option's value
     * @return this builder
     */
    public B setMetricsIntervalMs(final String value) {
        this.metricsIntervalMs = value;
        return asBuilder();
    }

    /**
     * Sets an attribute by its name, as a configuration file would.
     *
     * @return this builder
     * @throws IllegalArgumentException when no key has this attribute
     */
    public B setAttribute(final String name, final String value) {
        switch (name) {
            case "vendor":
                vendor = value;
                break;
            case "endpoint":
                endpoint = value;
                break;
            case "headers":
                headers = value;
                break;
            case "apiKey":
                apiKey = value;
                break;
            case "apiKeyFile":
                apiKeyFile = value;
                break;
            case "username":
                username = value;
                break;
            case "password":
                password = value;
                break;
            case "site":
                site = value;
                break;
            case "region":
                region = value;
                break;
            case "service":
                service = value;
                break;
            case "env":
                env = value;
                break;
            case "version":
                version = value;
                break;
            case "source":
                source = value;
                break;
            case "hostname":
                hostname = value;
                break;
            case "tags":
                tags = value;
                break;
            case "spanFields":
                spanFields = value;
                break;
            case "eventId":
                eventId = value;
                break;
            case "maxRequestBytes":
                maxRequestBytes = value;
                break;
            case "maxBatchRecords":
                maxBatchRecords = value;
                break;
            case "maxBatchBytes":
                maxBatchBytes = value;
                break;
            case "lingerMillis":
                lingerMillis = value;
                break;
            case "queueCapacity":
                queueCapacity = value;
                break;
            case "queueMaxBytes":
                queueMaxBytes = value;
                break;
            case "blockTimeoutMs":
                blockTimeoutMs = value;
                break;
            case "maxInFlight":
                maxInFlight = value;
                break;
            case "adaptiveConcurrency":
                adaptiveConcurrency = value;
                break;
            case "gzip":
                gzip = value;
                break;
            case "gzipLevel":
                gzipLevel = value;
                break;
            case "maxRetries":
                maxRetries = value;
                break;
            case "retryInitialBackoffMs":
                retryInitialBackoffMs = value;
                break;
            case "retryMaxBackoffMs":
                retryMaxBackoffMs = value;
                break;
            case "connectTimeoutMs":
                connectTimeoutMs = value;
                break;
            case "requestTimeoutMs":
                requestTimeoutMs = value;
                break;
            case "shutdownTimeoutMs":
                shutdownTimeoutMs = value;
                break;
            case "maxEventBytes":
                maxEventBytes = value;
                break;
            case "tlsCaFile":
                tlsCaFile = value;
                break;
            case "tlsClientCert":
                tlsClientCert = value;
                break;
            case "tlsClientKey":
                tlsClientKey = value;
                break;
            case "tlsVerify":
                tlsVerify = value;
                break;
            case "proxy":
                proxy = value;
                break;
            case "reportToStderr":
                reportToStderr = value;
                break;
            case "spillEnabled":
                spillEnabled = value;
                break;
            case "spillRequired":
                spillRequired = value;
                break;
            case "spillInFlightAfterMs":
                spillInFlightAfterMs = value;
                break;
            case "flushOnPanic":
                flushOnPanic = value;
                break;
            case "spillDir":
                spillDir = value;
                break;
            case "spillMaxBytes":
                spillMaxBytes = value;
                break;
            case "spillSegmentBytes":
                spillSegmentBytes = value;
                break;
            case "spillFull":
                spillFull = value;
                break;
            case "spillFsync":
                spillFsync = value;
                break;
            case "splunkIndex":
                splunkIndex = value;
                break;
            case "splunkSourcetype":
                splunkSourcetype = value;
                break;
            case "splunkChannel":
                splunkChannel = value;
                break;
            case "splunkAck":
                splunkAck = value;
                break;
            case "splunkAckTimeoutMs":
                splunkAckTimeoutMs = value;
                break;
            case "tenantId":
                tenantId = value;
                break;
            case "lokiLabels":
                lokiLabels = value;
                break;
            case "maxLineBytes":
                maxLineBytes = value;
                break;
            case "index":
                index = value;
                break;
            case "otlpEncoding":
                otlpEncoding = value;
                break;
            case "kafkaKey":
                kafkaKey = value;
                break;
            case "kafkaAcks":
                kafkaAcks = value;
                break;
            case "kafkaIdempotence":
                kafkaIdempotence = value;
                break;
            case "kafkaCompression":
                kafkaCompression = value;
                break;
            case "kafkaMaxMessageBytes":
                kafkaMaxMessageBytes = value;
                break;
            case "kafkaMessageTimeoutMs":
                kafkaMessageTimeoutMs = value;
                break;
            case "kafkaTls":
                kafkaTls = value;
                break;
            case "kafkaSaslMechanism":
                kafkaSaslMechanism = value;
                break;
            case "redact":
                redact = value;
                break;
            case "redactFields":
                redactFields = value;
                break;
            case "redactPatterns":
                redactPatterns = value;
                break;
            case "redactRegexes":
                redactRegexes = value;
                break;
            case "redactAction":
                redactAction = value;
                break;
            case "redactHashKey":
                redactHashKey = value;
                break;
            case "burstLimits":
                burstLimits = value;
                break;
            case "burstSites":
                burstSites = value;
                break;
            case "burstSummaryIntervalMs":
                burstSummaryIntervalMs = value;
                break;
            case "sampleRates":
                sampleRates = value;
                break;
            case "sampleByTrace":
                sampleByTrace = value;
                break;
            case "dropNotices":
                dropNotices = value;
                break;
            case "budgetLevelHourBytes":
                budgetLevelHourBytes = value;
                break;
            case "budgetLevelDayBytes":
                budgetLevelDayBytes = value;
                break;
            case "budgetHourBytes":
                budgetHourBytes = value;
                break;
            case "budgetDayBytes":
                budgetDayBytes = value;
                break;
            case "budgetHourEvents":
                budgetHourEvents = value;
                break;
            case "budgetDayEvents":
                budgetDayEvents = value;
                break;
            case "budgetOverdraftPercent":
                budgetOverdraftPercent = value;
                break;
            case "budgetSamplePercent":
                budgetSamplePercent = value;
                break;
            case "budgetStateFile":
                budgetStateFile = value;
                break;
            case "stallAfterMs":
                stallAfterMs = value;
                break;
            case "metricsIntervalMs":
                metricsIntervalMs = value;
                break;
            default:
                throw new IllegalArgumentException("logship: no option has the attribute " + name);
        }
        return asBuilder();
    }

    /** Adds the attributes given (not null) to {@code out} as name, value pairs. */
    protected void givenAttributes(final List<String> out) {
        add(out, "vendor", vendor);
        add(out, "endpoint", endpoint);
        add(out, "headers", headers);
        add(out, "apiKey", apiKey);
        add(out, "apiKeyFile", apiKeyFile);
        add(out, "username", username);
        add(out, "password", password);
        add(out, "site", site);
        add(out, "region", region);
        add(out, "service", service);
        add(out, "env", env);
        add(out, "version", version);
        add(out, "source", source);
        add(out, "hostname", hostname);
        add(out, "tags", tags);
        add(out, "spanFields", spanFields);
        add(out, "eventId", eventId);
        add(out, "maxRequestBytes", maxRequestBytes);
        add(out, "maxBatchRecords", maxBatchRecords);
        add(out, "maxBatchBytes", maxBatchBytes);
        add(out, "lingerMillis", lingerMillis);
        add(out, "queueCapacity", queueCapacity);
        add(out, "queueMaxBytes", queueMaxBytes);
        add(out, "blockTimeoutMs", blockTimeoutMs);
        add(out, "maxInFlight", maxInFlight);
        add(out, "adaptiveConcurrency", adaptiveConcurrency);
        add(out, "gzip", gzip);
        add(out, "gzipLevel", gzipLevel);
        add(out, "maxRetries", maxRetries);
        add(out, "retryInitialBackoffMs", retryInitialBackoffMs);
        add(out, "retryMaxBackoffMs", retryMaxBackoffMs);
        add(out, "connectTimeoutMs", connectTimeoutMs);
        add(out, "requestTimeoutMs", requestTimeoutMs);
        add(out, "shutdownTimeoutMs", shutdownTimeoutMs);
        add(out, "maxEventBytes", maxEventBytes);
        add(out, "tlsCaFile", tlsCaFile);
        add(out, "tlsClientCert", tlsClientCert);
        add(out, "tlsClientKey", tlsClientKey);
        add(out, "tlsVerify", tlsVerify);
        add(out, "proxy", proxy);
        add(out, "reportToStderr", reportToStderr);
        add(out, "spillEnabled", spillEnabled);
        add(out, "spillRequired", spillRequired);
        add(out, "spillInFlightAfterMs", spillInFlightAfterMs);
        add(out, "flushOnPanic", flushOnPanic);
        add(out, "spillDir", spillDir);
        add(out, "spillMaxBytes", spillMaxBytes);
        add(out, "spillSegmentBytes", spillSegmentBytes);
        add(out, "spillFull", spillFull);
        add(out, "spillFsync", spillFsync);
        add(out, "splunkIndex", splunkIndex);
        add(out, "splunkSourcetype", splunkSourcetype);
        add(out, "splunkChannel", splunkChannel);
        add(out, "splunkAck", splunkAck);
        add(out, "splunkAckTimeoutMs", splunkAckTimeoutMs);
        add(out, "tenantId", tenantId);
        add(out, "lokiLabels", lokiLabels);
        add(out, "maxLineBytes", maxLineBytes);
        add(out, "index", index);
        add(out, "otlpEncoding", otlpEncoding);
        add(out, "kafkaKey", kafkaKey);
        add(out, "kafkaAcks", kafkaAcks);
        add(out, "kafkaIdempotence", kafkaIdempotence);
        add(out, "kafkaCompression", kafkaCompression);
        add(out, "kafkaMaxMessageBytes", kafkaMaxMessageBytes);
        add(out, "kafkaMessageTimeoutMs", kafkaMessageTimeoutMs);
        add(out, "kafkaTls", kafkaTls);
        add(out, "kafkaSaslMechanism", kafkaSaslMechanism);
        add(out, "redact", redact);
        add(out, "redactFields", redactFields);
        add(out, "redactPatterns", redactPatterns);
        add(out, "redactRegexes", redactRegexes);
        add(out, "redactAction", redactAction);
        add(out, "redactHashKey", redactHashKey);
        add(out, "burstLimits", burstLimits);
        add(out, "burstSites", burstSites);
        add(out, "burstSummaryIntervalMs", burstSummaryIntervalMs);
        add(out, "sampleRates", sampleRates);
        add(out, "sampleByTrace", sampleByTrace);
        add(out, "dropNotices", dropNotices);
        add(out, "budgetLevelHourBytes", budgetLevelHourBytes);
        add(out, "budgetLevelDayBytes", budgetLevelDayBytes);
        add(out, "budgetHourBytes", budgetHourBytes);
        add(out, "budgetDayBytes", budgetDayBytes);
        add(out, "budgetHourEvents", budgetHourEvents);
        add(out, "budgetDayEvents", budgetDayEvents);
        add(out, "budgetOverdraftPercent", budgetOverdraftPercent);
        add(out, "budgetSamplePercent", budgetSamplePercent);
        add(out, "budgetStateFile", budgetStateFile);
        add(out, "stallAfterMs", stallAfterMs);
        add(out, "metricsIntervalMs", metricsIntervalMs);
    }

    private static void add(final List<String> out, final String name, final String value) {
        if (value != null) {
            out.add(name);
            out.add(value);
        }
    }
}
