#!/usr/bin/env bash
# `ship --listen http://` receiving 1,000-event NDJSON POSTs (150-byte JSON lines) from
# wrk over CONNECTIONS keep-alive connections for SECONDS, shipping with gzip (defaults)
# to the intake in another process (INTAKE_FLAGS=--count-only: a counting receiver).
# Prints events/s answered 2xx and delivered, logship's CPU seconds per delivered GiB
# (of the lines posted) and its peak RSS, and wrk's own CPU (the load generator must not
# be the bottleneck). Usage: docs/bench/listen-http.sh [LOGSHIP_BINARY] [CONNECTIONS]
# [SECONDS] (build first: cargo build --release -p logship-cli -p logship-intake; needs wrk).
set -euo pipefail
BIN=${1:-target/release/logship}
CONNS=${2:-4}
SECS=${3:-10}
PORT=${PORT:-18793}
LISTEN=${LISTEN:-18794}
DIR=$(mktemp -d)
SHIP=
trap 'kill $SHIP $INTAKE 2>/dev/null || true; rm -rf "$DIR"' EXIT
. "$(dirname "$0")/intake-setup.sh"
json_lines 1000 "$DIR/body.ndjson"
LINE_BYTES=$(( $(stat -c %s "$DIR/body.ndjson") / 1000 ))
cat > "$DIR/post.lua" <<LUA
local f = io.open("$DIR/body.ndjson", "rb")
wrk.method = "POST"
wrk.body = f:read("*a")
wrk.headers["Content-Type"] = "application/x-ndjson"
f:close()
LUA
"$BIN" ship --listen "http://127.0.0.1:$LISTEN" --endpoint "http://127.0.0.1:$PORT/logs" \
    --no-spill ${SHIP_FLAGS:-} 2>/dev/null &
SHIP=$!
until curl -s -o /dev/null "http://127.0.0.1:$LISTEN/"; do sleep 0.05; done
curl -sf -X POST "http://127.0.0.1:$PORT/_intake/reset" >/dev/null
CPU0=$(cpu_secs $SHIP)
START=$(date +%s.%N)
/usr/bin/time -f "%U %S" -o "$DIR/wrk.time" \
    wrk -t1 -c"$CONNS" -d"${SECS}s" -s "$DIR/post.lua" "http://127.0.0.1:$LISTEN/logs" > "$DIR/wrk.out"
WRK_END=$(date +%s.%N)
REQS=$(awk '/requests in/ { print $1 }' "$DIR/wrk.out")
NON2XX=$(awk '/Non-2xx/ { print $NF }' "$DIR/wrk.out")
ACCEPTED=$(( (REQS - ${NON2XX:-0}) * 1000 ))
wait_for_events "$ACCEPTED"
END=$(date +%s.%N)
CPU=$(awk -v a="$(cpu_secs $SHIP)" -v b="$CPU0" 'BEGIN { printf "%.2f", a - b }')
RSS=$(peak_rss_mib $SHIP)
DELIVERED=$(events)
awk -v c="$CONNS" -v acc="$ACCEPTED" -v del="$DELIVERED" -v lb="$LINE_BYTES" -v cpu="$CPU" \
    -v rss="$RSS" -v ws="$(echo "$WRK_END - $START" | bc)" -v s="$(echo "$END - $START" | bc)" \
    -v non="${NON2XX:-0}" -v wcpu="$(awk '{ print $1 + $2 }' "$DIR/wrk.time")" 'BEGIN {
    printf "listen http, %d connections: %.0f events/s answered 2xx (%d POSTs refused), %.0f delivered/s; logship %.2f CPU s = %.1f CPU s/GiB, peak RSS %s MiB; wrk %.2f CPU s\n",
        c, acc / ws, non, del / s, cpu, cpu / (del * lb / 1073741824), rss, wcpu }'
