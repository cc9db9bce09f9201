#!/usr/bin/env bash
# A single-node Apache Kafka broker (KRaft, broker and controller in one JVM) on 127.0.0.1,
# from Maven Central's Kafka jars, for the Kafka tests and benchmarks (docs/kafka.md).
#
#   scripts/kafka-broker.sh fetch          copies the jars (once) into $LOGSHIP_KAFKA_LIBS
#   scripts/kafka-broker.sh start DIR      formats DIR (first time), starts the broker, waits
#                                          until it serves, prints its PLAINTEXT port
#   scripts/kafka-broker.sh stop DIR       stops it (SIGTERM, then SIGKILL after 30 s)
#
# start picks free ports (PLAINTEXT, SASL_PLAINTEXT, SSL, SASL_SSL, controller) the first
# time and keeps them in DIR, so a restart of the same DIR comes back on the same ports.
# DIR/sasl.port holds the SASL_PLAINTEXT port (mechanisms PLAIN, SCRAM-SHA-256 and
# SCRAM-SHA-512); the SASL user is `logship`, its password $LOGSHIP_KAFKA_SASL_PASSWORD
# (default `logship-test-secret`; the SCRAM credentials are written when DIR is formatted).
# DIR/ssl.port is a TLS listener that requires a client certificate; DIR/sasl_ssl.port is
# TLS with SASL (no client certificate). The test certificates are made with openssl into
# DIR/tls the first time: ca.pem (the CA to trust), client.pem and client.key (a client
# certificate the broker accepts), broker.pem (the broker's key and certificate, for
# 127.0.0.1 and localhost); throwaway keys, never committed. Topics are not created automatically (a test creates its
# own). The broker's log is DIR/broker.log; its pid DIR/broker.pid. With
# LOGSHIP_KAFKA_OWNER_PID set, the broker is also stopped once that process is gone (a test
# process that dies never leaves a JVM behind).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
libs="${LOGSHIP_KAFKA_LIBS:-${HOME:-/root}/.cache/logship/kafka-4.4.0}"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"

die() { echo "kafka-broker.sh: $*" >&2; exit 1; }

fetch() {
    if [ -f "$libs/.complete" ]; then
        return 0
    fi
    command -v mvn >/dev/null 2>&1 || die "mvn not found: install maven (apt-get install maven)"
    mkdir -p "$libs"
    mvn -q -B -f "$here/kafka/pom.xml" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$libs" >&2 \
        || die "could not fetch the Kafka jars from Maven Central (see mvn's output above)"
    touch "$libs/.complete"
}

# The throwaway CA, broker and client certificates of DIR/tls (once per DIR).
make_certs() {
    local tls="$1"
    [ -f "$tls/.complete" ] && return 0
    command -v openssl >/dev/null 2>&1 || die "openssl not found: install it (apt-get install openssl)"
    mkdir -p "$tls"
    (
        cd "$tls"
        openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 30 \
            -subj "/CN=logship test CA" 2>/dev/null
        for who in broker client; do
            openssl req -newkey rsa:2048 -nodes -keyout "$who.key" -out "$who.csr" \
                -subj "/CN=logship test $who" 2>/dev/null
            printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$who.ext"
            openssl x509 -req -in "$who.csr" -CA ca.pem -CAkey ca.key -CAcreateserial \
                -out "$who.pem" -days 30 -extfile "$who.ext" 2>/dev/null
        done
        # The broker's PEM key store: its (unencrypted PKCS#8) key, then its certificate.
        cat broker.key broker.pem >broker-store.pem
        chmod 600 ./*.key broker-store.pem
    ) || die "making the test certificates in $tls failed"
    touch "$tls/.complete"
}

# Five distinct free ports, one per line: every socket is held until all are picked, so no
# two are the same. Another process may still take one before the broker binds it: start
# then picks again (below).
free_ports() {
    python3 -c 'import socket
socks = [socket.socket() for _ in range(5)]
for s in socks: s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in socks))'
}

pick_ports() {
    local dir="$1" ports
    ports=$(free_ports) || die "picking free ports failed (python3 is needed)"
    set -- $ports
    echo "$1" >"$dir/port"
    echo "$2" >"$dir/sasl.port"
    echo "$3" >"$dir/controller.port"
    echo "$4" >"$dir/ssl.port"
    echo "$5" >"$dir/sasl_ssl.port"
}

start() {
    local dir="$1"
    [ -n "$dir" ] || die "usage: $0 start DIR"
    fetch
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    if [ -f "$dir/broker.pid" ] && kill -0 "$(cat "$dir/broker.pid")" 2>/dev/null; then
        die "a broker already runs from $dir (pid $(cat "$dir/broker.pid"))"
    fi
    make_certs "$dir/tls"
    # Ports picked here (not kept from an earlier start of DIR) may be taken by another
    # process before the broker binds them: pick again, up to three times. A restart keeps
    # its ports, because clients reconnect to them.
    local fresh=0 attempt rc
    if [ ! -f "$dir/port" ]; then
        fresh=1
        pick_ports "$dir"
    fi
    for attempt in 1 2 3; do
        rc=0
        launch "$dir" || rc=$?
        [ "$rc" -eq 0 ] && return 0
        if [ "$rc" -eq 75 ] && [ "$fresh" -eq 1 ] && [ "$attempt" -lt 3 ]; then
            echo "kafka-broker.sh: a port was taken before the broker bound it; picking new ones" >&2
            pick_ports "$dir"
            continue
        fi
        [ "$rc" -eq 75 ] && die "the broker could not bind its ports: see $dir/broker.log"
        exit "$rc"
    done
}

# Writes the configuration and runs the broker until it serves; prints its PLAINTEXT port.
# Returns 75 when the broker exited because a port was in use.
launch() {
    local dir="$1"
    local port sasl ctl ssl sasl_ssl password
    port=$(cat "$dir/port")
    sasl=$(cat "$dir/sasl.port")
    ctl=$(cat "$dir/controller.port")
    ssl=$(cat "$dir/ssl.port")
    sasl_ssl=$(cat "$dir/sasl_ssl.port")
    password="${LOGSHIP_KAFKA_SASL_PASSWORD:-logship-test-secret}"
    cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$ctl
listeners=PLAINTEXT://127.0.0.1:$port,SASL_PLAINTEXT://127.0.0.1:$sasl,SSL://127.0.0.1:$ssl,SASL_SSL://127.0.0.1:$sasl_ssl,CONTROLLER://127.0.0.1:$ctl
advertised.listeners=PLAINTEXT://127.0.0.1:$port,SASL_PLAINTEXT://127.0.0.1:$sasl,SSL://127.0.0.1:$ssl,SASL_SSL://127.0.0.1:$sasl_ssl
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="logship" password="$password" user_logship="$password";
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="logship" password="$password" user_logship="$password";
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
ssl.keystore.type=PEM
ssl.keystore.location=$dir/tls/broker-store.pem
ssl.truststore.type=PEM
ssl.truststore.location=$dir/tls/ca.pem
listener.name.ssl.ssl.client.auth=required
log.dirs=$dir/data
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=2
EOF
    local cp="$libs/*"
    if [ ! -f "$dir/data/meta.properties" ]; then
        "$java" -Xmx256m -cp "$cp" kafka.tools.StorageTool format \
            -t "$("$java" -Xmx256m -cp "$cp" kafka.tools.StorageTool random-uuid 2>>"$dir/broker.log")" \
            -c "$dir/server.properties" \
            --add-scram "SCRAM-SHA-256=[name=logship,password=$password]" \
            --add-scram "SCRAM-SHA-512=[name=logship,password=$password]" \
            >>"$dir/broker.log" 2>&1 \
            || die "formatting $dir/data failed: see $dir/broker.log"
    fi
    local log_lines
    log_lines=$(wc -l <"$dir/broker.log" 2>/dev/null || echo 0)
    # Small heap, serial GC: the test machines have 2 cores shared with the build.
    nohup "$java" -Xms256m -Xmx768m -XX:+UseSerialGC -Djava.awt.headless=true \
        -Dorg.slf4j.simpleLogger.defaultLogLevel=info \
        -cp "$cp" kafka.Kafka "$dir/server.properties" >>"$dir/broker.log" 2>&1 </dev/null &
    local pid=$!
    echo "$pid" >"$dir/broker.pid"
    if [ -n "${LOGSHIP_KAFKA_OWNER_PID:-}" ]; then
        local owner="$LOGSHIP_KAFKA_OWNER_PID"
        nohup bash -c "while kill -0 $owner 2>/dev/null && kill -0 $pid 2>/dev/null; do sleep 1; done; kill -KILL $pid 2>/dev/null" \
            >/dev/null 2>&1 </dev/null &
    fi
    # Ready when the broker says it has started (it then answers metadata requests).
    local marker="Kafka Server started"
    local before
    before=$(grep -c "$marker" "$dir/broker.log" || true)
    for _ in $(seq 1 1200); do
        if ! kill -0 "$pid" 2>/dev/null; then
            # (grep without -q reads to the end: no SIGPIPE for tail under pipefail)
            if tail -n +"$((log_lines + 1))" "$dir/broker.log" \
                | grep -E "BindException|Address already in use" >/dev/null; then
                return 75
            fi
            die "the broker exited during start-up: see $dir/broker.log"
        fi
        if [ "$(grep -c "$marker" "$dir/broker.log" || true)" -gt "$before" ]; then
            echo "$port"
            return 0
        fi
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    die "the broker did not start within 120 s: see $dir/broker.log"
}

stop() {
    local dir="$1"
    [ -n "$dir" ] || die "usage: $0 stop DIR"
    [ -f "$dir/broker.pid" ] || return 0
    local pid
    pid=$(cat "$dir/broker.pid")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 300); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/broker.pid"
}

case "${1:-}" in
    fetch) fetch; echo "$libs" ;;
    start) start "${2:-}" ;;
    stop) stop "${2:-}" ;;
    *) die "usage: $0 fetch | start DIR | stop DIR" ;;
esac
