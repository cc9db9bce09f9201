#!/usr/bin/env bash
# Instructions per delivered event of `logship ship --input` against gzip alone over the
# exact bytes it sends (docs/performance.md, "CPU per delivered event against gzip alone").
# Counts with `valgrind --tool=callgrind` (repeatable on a noisy machine), whole process.
# Usage: docs/bench/cpu-per-event.sh [LINES] (default 50000); needs valgrind, python3 and
# release builds: cargo build --release -p logship-cli -p logship-intake; cargo bench -p
# logship-bench --bench gzip_floor --no-run.
set -euo pipefail
cd "$(dirname "$0")/../.."
LINES=${1:-50000}
T=${CARGO_TARGET_DIR:-target}
BIN=$T/release/logship
INTAKE_BIN=$T/release/logship-intake
FLOOR=$(ls -t "$T"/release/deps/gzip_floor-* | grep -v '\.d$' | head -1)
DIR=$(mktemp -d)
INTAKE=
CAPTURE=
trap 'kill $INTAKE $CAPTURE 2>/dev/null || true; rm -rf "$DIR"' EXIT

# 150-character lines: ids, amounts, trace ids and words.
awk -v n="$LINES" 'BEGIN { srand(7); for (i = 0; i < n; i++) {
    printf "order %010d paid amount=%07.2f EUR customer=%06d trace=%032x status=accepted via card gateway eu-west ok done\n",
        i, rand() * 10000, int(rand() * 1000000), i * 2654435761 } }' | cut -c1-150 > "$DIR/in.log"

# The exact NDJSON the pipeline sends: a server that keeps the (uncompressed) bodies.
python3 docs/bench/capture-bodies.py 18951 "$DIR/body.ndjson" & CAPTURE=$!
"$INTAKE_BIN" --port 18952 >/dev/null 2>&1 & INTAKE=$!
until curl -sf http://127.0.0.1:18952/_intake/stats >/dev/null; do sleep 0.05; done
sleep 0.5
"$BIN" ship --input "$DIR/in.log" --endpoint http://127.0.0.1:18951/logs --no-spill --no-gzip 2>/dev/null

count() { valgrind --tool=callgrind --callgrind-out-file="$DIR/cg.out" "$@" 2>&1 >/dev/null | sed -n 's/.*refs: *//p' | tr -d ,; }
ship=$(count "$BIN" ship --input "$DIR/in.log" --endpoint http://127.0.0.1:18952/logs --no-spill)
floor=$(LOGSHIP_BENCH_NDJSON="$DIR/body.ndjson" count "$FLOOR")
read_only=$(LOGSHIP_BENCH_NDJSON="$DIR/body.ndjson" LOGSHIP_BENCH_READ_ONLY=1 count "$FLOOR")
awk -v s="$ship" -v f="$floor" -v r="$read_only" -v n="$LINES" 'BEGIN {
    printf "logship ship --input: %d instructions, %d per event\n", s, s / n
    printf "gzip alone minus reading: %d instructions, %d per event\n", f - r, (f - r) / n
    printf "ratio: %.2f\n", s / (f - r) }'
