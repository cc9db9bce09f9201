#!/usr/bin/env bash
# Followed-file throughput next to `ship --input` on the same file, with the intake in
# another process (gzip on, defaults otherwise; INTAKE_FLAGS=--count-only measures against
# a counting receiver instead of the strict intake). Prints MB/s, events/s and CPU seconds
# per MB for both. Usage: docs/bench/follow-throughput.sh [LOGSHIP_BINARY] [MEGABYTES]
# (build first: cargo build --release -p logship-cli -p logship-intake).
set -euo pipefail
BIN=${1:-target/release/logship}
MB=${2:-500}
PORT=${PORT:-18777}
. "$(dirname "$0")/follow-setup.sh"
report() { # name seconds cpu
    awk -v n="$1" -v s="$2" -v c="$3" -v b="$BYTES" -v l="$LINES" 'BEGIN {
        printf "%-16s %8.1f MB/s %10.0f events/s  %.2f s CPU  %.4f CPU s/MB\n", n, b / s / 1048576, l / s, c, c / (b / 1048576) }'
}

# ship --input: reads the file once and exits when everything is delivered.
curl -sf -X POST "http://127.0.0.1:$PORT/_intake/reset" >/dev/null
START=$(date +%s.%N)
/usr/bin/time -f "%U %S" -o "$DIR/time" "$BIN" ship --input "$DIR/app.log" \
    --endpoint "http://127.0.0.1:$PORT/logs" --no-spill ${SHIP_FLAGS:-} 2>/dev/null
END=$(date +%s.%N)
CPU=$(awk '{ printf "%.2f", $1 + $2 }' "$DIR/time")
report "ship --input" "$(echo "$END - $START" | bc)" "$CPU"

# ship --follow: runs until stopped; timed until the intake holds every line.
curl -sf -X POST "http://127.0.0.1:$PORT/_intake/reset" >/dev/null
START=$(date +%s.%N)
"$BIN" ship --follow "$DIR/app.log" --no-checkpoint --no-spill \
    --endpoint "http://127.0.0.1:$PORT/logs" ${SHIP_FLAGS:-} 2>/dev/null &
FOLLOW=$!
wait_for_events "$LINES"
END=$(date +%s.%N)
CPU=$(cpu_secs $FOLLOW)
kill -TERM $FOLLOW; wait $FOLLOW || true
report "ship --follow" "$(echo "$END - $START" | bc)" "$CPU"
