#!/usr/bin/env bash
# The cost guard (issue #34, point 4): instructions per event of the hot paths, counted with
# `valgrind --tool=callgrind` (repeatable on a noisy machine), against the baseline committed
# beside this script (baseline.tsv). Fails when any path costs more than 10 % over its
# baseline; `.ci/run` runs it.
#
# Each workload runs twice, with N and 2N events; (count(2N) - count(N)) / N is its cost per
# event, with start-up and shutdown cancelled out. Workloads:
# - in-process (crates/logship-bench/benches/cost_guard.rs): the log call (caller's thread
#   only), admission on and off, each vendor's encoder and gzip (whole process);
# - the `logship` command (whole process; `logship-intake --count-only` in another process):
#   `ship --input` of text and of JSON lines, `--listen` of syslog over TCP, of Log4j2
#   JsonLayout NDJSON over HTTP (1,000 events a POST) and of OTLP/HTTP protobuf.
#
# Usage: crates/logship-bench/guard/check.sh [WORKLOAD...]   (all by default)
#   LOGSHIP_GUARD_BLESS=1 ...   write the measured figures as the new baseline (on purpose:
#                               commit baseline.tsv with the change that moved them, and say
#                               why in the commit message)
#   LOGSHIP_GUARD_EVENTS=N      N (default 2000)
#   LOGSHIP_GUARD_KEEP=DIR      keep the callgrind files there (WORKLOAD.COUNT.cg), for
#                               `callgrind_annotate --inclusive=yes DIR/WORKLOAD.4000.cg`
# Needs valgrind, curl and bash (its /dev/tcp); builds what it runs (release profile).
set -euo pipefail
cd "$(dirname "$0")/../../.."
GUARD_DIR=crates/logship-bench/guard
BASELINE=$GUARD_DIR/baseline.tsv
N=${LOGSHIP_GUARD_EVENTS:-2000}
LIMIT_PCT=10
T=${CARGO_TARGET_DIR:-target}

for tool in valgrind curl; do
    command -v "$tool" >/dev/null || { echo "cost guard: $tool is missing (apt-get install $tool)" >&2; exit 1; }
done

cargo build --release --locked -q -p logship-cli -p logship-intake
cargo bench --locked -q -p logship-bench --bench cost_guard --no-run 2>/dev/null
BIN=$T/release/logship
INTAKE_BIN=$T/release/logship-intake
WORK=$(ls -t "$T"/release/deps/cost_guard-* | grep -v '\.d$' | head -1)

DIR=$(mktemp -d)
INTAKE=
LISTENER=
trap 'kill $INTAKE $LISTENER 2>/dev/null || true; [ -z "${LOGSHIP_GUARD_KEEP:-}" ] || { mkdir -p "$LOGSHIP_GUARD_KEEP"; cp "$DIR"/*.cg "$LOGSHIP_GUARD_KEEP"/ 2>/dev/null; }; rm -rf "$DIR"' EXIT

# One count-only intake in another process for the command's workloads (its CPU is not
# counted), on a port the kernel picks.
"$INTAKE_BIN" --port 0 --count-only >"$DIR/intake.out" 2>&1 &
INTAKE=$!
for _ in $(seq 200); do
    PORT=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\).*/\1/p' "$DIR/intake.out" | head -1)
    [ -n "$PORT" ] && break
    sleep 0.05
done
[ -n "${PORT:-}" ] || { echo "cost guard: the intake did not start" >&2; cat "$DIR/intake.out" >&2; exit 1; }
ENDPOINT=http://127.0.0.1:$PORT/logs
intake_events() { curl -sf "http://127.0.0.1:$PORT/_intake/stats" | sed -n 's/.*"events":\([0-9]*\).*/\1/p'; }

# Inputs of the command's workloads: 2N events each (the N run reads the first half).
MSG="order 4711 checked out: 3 items, total 149.90 EUR, paid by card via acme-pay in 182 ms; label queued for warehouse fra-2, priority normal, ETA 2 days."
gen() { # KIND COUNT FILE
    awk -v n="$2" -v kind="$1" -v msg="$MSG" 'BEGIN { for (i = 0; i < n; i++) {
        if (kind == "text") print msg
        else if (kind == "json") printf "{\"timestamp\":\"2026-12-05T13:00:00.%06dZ\",\"level\":\"INFO\",\"fields\":{\"message\":\"%s\",\"order_id\":%d},\"target\":\"bench::orders\"}\n", i % 1000000, msg, i
        else if (kind == "syslog") printf "<134>1 2026-12-05T13:00:00.%06dZ bench-host orders 4711 ORDER - %s\n", i % 1000000, msg
        else if (kind == "log4j2") printf "{\"instant\":{\"epochSecond\":1764939600,\"nanoOfSecond\":%d},\"thread\":\"main\",\"level\":\"INFO\",\"loggerName\":\"com.acme.Orders\",\"message\":\"%s\",\"endOfBatch\":false,\"loggerFqcn\":\"org.apache.logging.log4j.spi.AbstractLogger\",\"contextMap\":{\"order_id\":\"%d\"},\"threadId\":1,\"threadPriority\":5}\n", i, msg, i
    } }' >"$3"
}

# Instructions of one run under callgrind (all threads, or only inside a function).
count() { # OUT_NAME [--toggle-collect=PATTERN] CMD...
    local out=$DIR/$1.cg
    shift
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >"$DIR/run.out" 2>"$DIR/run.err" ||
        { echo "cost guard: run failed: $*" >&2; tail -20 "$DIR/run.err" >&2; exit 1; }
    sed -n 's/^summary: //p' "$out"
}

# Starts the command under callgrind listening on URL, waits until it listens.
start_listener() { # OUT_NAME URL
    local out=$DIR/$1.cg
    valgrind --tool=callgrind --callgrind-out-file="$out" "$BIN" ship --listen "$2" \
        --endpoint "$ENDPOINT" --no-spill --no-gzip >"$DIR/run.out" 2>"$DIR/run.err" &
    LISTENER=$!
    for _ in $(seq 1200); do
        LURL=$(sed -n 's/^logship: listening on //p' "$DIR/run.err" | head -1)
        [ -n "$LURL" ] && return 0
        kill -0 "$LISTENER" 2>/dev/null || break
        sleep 0.05
    done
    echo "cost guard: the listener did not start" >&2
    cat "$DIR/run.err" >&2
    exit 1
}

# Waits for the intake to have counted TARGET events, stops the listener, prints its count.
stop_listener() { # OUT_NAME TARGET
    for _ in $(seq 2400); do
        [ "$(intake_events)" -ge "$2" ] && break
        sleep 0.05
    done
    [ "$(intake_events)" -ge "$2" ] || { echo "cost guard: the intake got $(intake_events) of $2 events" >&2; exit 1; }
    kill -TERM "$LISTENER"
    wait "$LISTENER" || true
    LISTENER=
    sed -n 's/^summary: //p' "$DIR/$1.cg"
}

# One run of WORKLOAD with COUNT events; prints its instructions.
run() { # WORKLOAD COUNT
    local w=$1 n=$2 before
    case $w in
        log_call | log_call_limits)
            LOGSHIP_GUARD_EVENTS=$n count "$w.$n" '--toggle-collect=*cost_guard::calls*' "$WORK" "$w" ;;
        input_text | input_json)
            local kind=${w#input_} fmt=text
            [ "$kind" = json ] && fmt=json
            head -n "$n" "$DIR/$kind.src" >"$DIR/in.log"
            count "$w.$n" "$BIN" ship --input "$DIR/in.log" --format "$fmt" --endpoint "$ENDPOINT" --no-spill --no-gzip ;;
        listen_syslog)
            before=$(intake_events)
            start_listener "$w.$n" syslog+tcp://127.0.0.1:0
            local hostport=${LURL#syslog+tcp://}
            head -n "$n" "$DIR/syslog.src" >"/dev/tcp/${hostport%:*}/${hostport##*:}"
            stop_listener "$w.$n" $((before + n)) ;;
        listen_log4j2 | listen_otlp)
            before=$(intake_events)
            start_listener "$w.$n" http://127.0.0.1:0
            local i
            for ((i = 0; i < n; i += 1000)); do
                if [ "$w" = listen_log4j2 ]; then
                    sed -n "$((i + 1)),$((i + 1000))p" "$DIR/log4j2.src" |
                        curl -sf -o /dev/null -H 'Content-Type: application/json' --data-binary @- "$LURL/"
                else
                    curl -sf -o /dev/null -H 'Content-Type: application/x-protobuf' --data-binary @"$DIR/otlp.bin" "$LURL/v1/logs"
                fi
            done
            stop_listener "$w.$n" $((before + n)) ;;
        *) LOGSHIP_GUARD_EVENTS=$n count "$w.$n" "$WORK" "$w" ;;
    esac
}

ALL="log_call log_call_limits admit_off admit_on encode_ndjson encode_datadog encode_splunk
encode_newrelic encode_dynatrace encode_loki encode_elasticsearch encode_otlp gzip_ndjson
input_text input_json listen_syslog listen_log4j2 listen_otlp"
WORKLOADS=${*:-$ALL}

for kind in text json syslog log4j2; do gen "$kind" $((2 * N)) "$DIR/$kind.src"; done
"$WORK" otlp-body 1000 >"$DIR/otlp.bin"
if [ $((N % 1000)) -ne 0 ]; then echo "cost guard: LOGSHIP_GUARD_EVENTS must be a multiple of 1000" >&2; exit 1; fi

status=0
: >"$DIR/measured.tsv"
printf '%-22s %12s %12s %8s\n' workload 'instr/event' baseline change
for w in $WORKLOADS; do
    one=$(run "$w" "$N")
    two=$(run "$w" $((2 * N)))
    per=$(((two - one) / N))
    printf '%s\t%s\n' "$w" "$per" >>"$DIR/measured.tsv"
    base=$(awk -F'\t' -v w="$w" '$1 == w { print $2 }' "$BASELINE" 2>/dev/null || true)
    if [ -z "$base" ]; then
        printf '%-22s %12s %12s %8s\n' "$w" "$per" - new
        [ -n "${LOGSHIP_GUARD_BLESS:-}" ] || status=1
        continue
    fi
    change=$(awk -v p="$per" -v b="$base" 'BEGIN { printf "%+.1f%%", 100 * (p - b) / b }')
    flag=
    if awk -v p="$per" -v b="$base" -v l="$LIMIT_PCT" 'BEGIN { exit !(p > b * (1 + l / 100)) }'; then
        flag="  <- more than $LIMIT_PCT % over the baseline"
        status=1
    elif awk -v p="$per" -v b="$base" -v l="$LIMIT_PCT" 'BEGIN { exit !(p < b * (1 - l / 100)) }'; then
        flag="  (cheaper: bless the baseline to keep the gain)"
    fi
    printf '%-22s %12s %12s %8s%s\n' "$w" "$per" "$base" "$change" "$flag"
done

if [ -n "${LOGSHIP_GUARD_BLESS:-}" ]; then
    { echo -e "# workload\tinstructions per event (crates/logship-bench/guard/check.sh, LOGSHIP_GUARD_BLESS=1)"
      # Keep rows of workloads not run this time.
      awk -F'\t' 'NR == FNR { seen[$1] = 1; next } !/^#/ && !($1 in seen)' "$DIR/measured.tsv" "$BASELINE" 2>/dev/null || true
      cat "$DIR/measured.tsv"; } >"$DIR/baseline.new"
    mv "$DIR/baseline.new" "$BASELINE"
    echo "cost guard: baseline written to $BASELINE"
    exit 0
fi
if [ "$status" -ne 0 ]; then
    echo "cost guard: FAILED. If the rise is intended, rerun with LOGSHIP_GUARD_BLESS=1 and commit $BASELINE (README: \"The cost guard\")." >&2
fi
exit "$status"
