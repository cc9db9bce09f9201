#!/usr/bin/env bash
# Instructions per MB (callgrind, all threads) of `ship --follow` next to `ship --input`
# on the same file, with the intake in another process (gzip on, defaults otherwise).
# Instruction counts do not depend on what else the machine runs, unlike MB/s on a shared
# machine. Usage: docs/bench/follow-callgrind.sh [LOGSHIP_BINARY] [MEGABYTES]
# (build first: cargo build --release -p logship-cli -p logship-intake; needs valgrind).
set -euo pipefail
BIN=$(realpath "${1:-target/release/logship}")
MB=${2:-10}
PORT=${PORT:-18998}
. "$(dirname "$0")/follow-setup.sh"
total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'; }
report() { # name file
    awk -v n="$1" -v ir="$(total "$2")" -v mb="$MB" 'BEGIN {
        printf "%-14s %6.1f M instructions per MB\n", n, ir / mb / 1e6 }'
}

curl -sf -X POST "http://127.0.0.1:$PORT/_intake/reset" >/dev/null
valgrind --tool=callgrind --callgrind-out-file="$DIR/input.out" "$BIN" ship \
    --input "$DIR/app.log" --endpoint "http://127.0.0.1:$PORT/logs" --no-spill 2>/dev/null
report "ship --input" "$DIR/input.out"

curl -sf -X POST "http://127.0.0.1:$PORT/_intake/reset" >/dev/null
valgrind --tool=callgrind --callgrind-out-file="$DIR/follow.out" "$BIN" ship \
    --follow "$DIR/app.log" --no-checkpoint --no-spill \
    --endpoint "http://127.0.0.1:$PORT/logs" 2>/dev/null &
FOLLOW=$!
until [ "$(events)" -ge "$LINES" ]; do sleep 0.2; done
kill -TERM $FOLLOW; wait $FOLLOW || true
report "ship --follow" "$DIR/follow.out"
# Where they differ: callgrind_annotate "$DIR/follow.out" (keep $DIR by removing the trap).
