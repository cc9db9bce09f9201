#!/usr/bin/env bash
# `ship --listen tcp://` receiving LINES 150-byte JSON lines split over CONNECTIONS
# connections at once (each a `cat` of its share into the socket), shipping with gzip
# (defaults) to the intake in another process (INTAKE_FLAGS=--count-only: a counting
# receiver), timed until the intake holds every line. Prints delivered events/s,
# logship's CPU seconds per delivered GiB and its peak RSS.
# Usage: docs/bench/listen-tcp.sh [LOGSHIP_BINARY] [CONNECTIONS] [LINES]
# (build first: cargo build --release -p logship-cli -p logship-intake).
set -euo pipefail
BIN=${1:-target/release/logship}
CONNS=${2:-16}
LINES=${3:-1000000}
PORT=${PORT:-18795}
LISTEN=${LISTEN:-18796}
DIR=$(mktemp -d)
SHIP=
trap 'kill $SHIP $INTAKE 2>/dev/null || true; rm -rf "$DIR"' EXIT
. "$(dirname "$0")/intake-setup.sh"
json_lines "$LINES" "$DIR/all.ndjson"
BYTES=$(stat -c %s "$DIR/all.ndjson")
split -n "l/$CONNS" "$DIR/all.ndjson" "$DIR/part."
"$BIN" ship --listen "tcp://127.0.0.1:$LISTEN" --endpoint "http://127.0.0.1:$PORT/logs" \
    --no-spill ${SHIP_FLAGS:-} 2>/dev/null &
SHIP=$!
until (exec 3<>"/dev/tcp/127.0.0.1/$LISTEN") 2>/dev/null; do sleep 0.05; done
curl -sf -X POST "http://127.0.0.1:$PORT/_intake/reset" >/dev/null
CPU0=$(cpu_secs $SHIP)
START=$(date +%s.%N)
for part in "$DIR"/part.*; do cat "$part" > "/dev/tcp/127.0.0.1/$LISTEN" & done
wait_for_events "$LINES"
END=$(date +%s.%N)
wait $(jobs -p | grep -v -e "^$SHIP\$" -e "^$INTAKE\$") 2>/dev/null || true
CPU=$(awk -v a="$(cpu_secs $SHIP)" -v b="$CPU0" 'BEGIN { printf "%.2f", a - b }')
awk -v c="$CONNS" -v n="$LINES" -v b="$BYTES" -v cpu="$CPU" -v rss="$(peak_rss_mib $SHIP)" \
    -v s="$(echo "$END - $START" | bc)" 'BEGIN {
    printf "listen tcp, %d connections: %d lines (%.1f MiB) in %.2f s = %.0f delivered/s (%.1f MiB/s); logship %.2f CPU s = %.1f CPU s/GiB, peak RSS %s MiB\n",
        c, n, b / 1048576, s, n / s, b / 1048576 / s, cpu, cpu / (b / 1073741824), rss }'
