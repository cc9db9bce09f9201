#!/usr/bin/env bash
# Instructions per event that redaction with the default rules adds to `logship ship --input`
# (docs/performance.md, "The cost of redaction"). Counts with `valgrind --tool=callgrind`
# (repeatable on a noisy machine), whole process, the same input shipped with and without
# --redact to the local intake. Usage: docs/bench/redaction-cost.sh [LINES] (default 20000);
# needs valgrind and release builds: cargo build --release -p logship-cli -p logship-intake.
set -euo pipefail
cd "$(dirname "$0")/../.."
LINES=${1:-20000}
T=${CARGO_TARGET_DIR:-target}
BIN=$T/release/logship
INTAKE_BIN=$T/release/logship-intake
DIR=$(mktemp -d)
INTAKE=
trap 'kill $INTAKE 2>/dev/null || true; rm -rf "$DIR"' EXIT

# The 150-character lines of cpu-per-event.sh (ids, amounts, trace ids: many digits, the
# card scanner's worst realistic case), and one line in 50 carrying a secret (a bearer
# token, a card number, a password=...).
awk -v n="$LINES" 'BEGIN { srand(7); for (i = 0; i < n; i++) {
    if (i % 50 == 0) { printf "login ok user=%06d Authorization: Bearer sk-%08x%08x card 4111 1111 1111 1111 done\n", i, i, i * 7; continue }
    printf "order %010d paid amount=%07.2f EUR customer=%06d trace=%032x status=accepted via card gateway eu-west ok done\n",
        i, rand() * 10000, int(rand() * 1000000), i * 2654435761 } }' | cut -c1-150 > "$DIR/in.log"

"$INTAKE_BIN" --port 18953 >/dev/null 2>&1 & INTAKE=$!
until curl -sf http://127.0.0.1:18953/_intake/stats >/dev/null; do sleep 0.05; done

count() { valgrind --tool=callgrind --callgrind-out-file="$DIR/cg.out" "$@" 2>&1 >/dev/null | sed -n 's/.*refs: *//p' | tr -d ,; }
plain=$(count "$BIN" ship --input "$DIR/in.log" --endpoint http://127.0.0.1:18953/logs --no-spill)
redacted=$(count "$BIN" ship --input "$DIR/in.log" --endpoint http://127.0.0.1:18953/logs --no-spill --redact)
awk -v p="$plain" -v r="$redacted" -v n="$LINES" 'BEGIN {
    printf "logship ship --input: %d instructions, %d per event\n", p, p / n
    printf "with --redact (default rules): %d instructions, %d per event\n", r, r / n
    printf "redaction: %d per event, %.1f%% of the pipeline per event\n", (r - p) / n, 100 * (r - p) / p }'
