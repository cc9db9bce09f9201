#!/usr/bin/env bash
# Compressor and level by speed per ratio (docs/performance.md, "Compressor and level"):
# instructions per input byte (valgrind --tool=callgrind, repeatable on a noisy machine)
# and compression ratio of the bodies logship really sends for LINES 150-byte JSON lines
# (`ship --input --format json`, captured uncompressed by a small server), compressed
# the way its senders do (benches/compress_levels.rs), for zlib-rs levels 1..6 and, with
# LIBDEFLATE=1, libdeflate levels 1..6, in bodies of 200 and of 1,000 events.
# KIND=padded (default): the bench scripts' 150-byte lines (json_lines in intake-setup.sh:
# a short message padded with spaces); KIND=varied: 150-byte lines whose message carries
# a random 24-hex-digit trace id, ids and amounts, which
# compress less.
# Usage: [KIND=varied] docs/bench/compress-levels.sh [LINES] (default 20000); needs valgrind, python3,
# curl and: cargo build --release -p logship-cli -p logship-intake; cargo bench -p
# logship-bench --bench compress_levels --no-run [--features libdeflate].
set -euo pipefail
cd "$(dirname "$0")/../.."
LINES=${1:-20000}
T=${CARGO_TARGET_DIR:-target}
BIN=$T/release/logship
PORT=${PORT:-18961}
BENCH=$(ls -t "$T"/release/deps/compress_levels-* | grep -v '\.d$' | head -1)
DIR=$(mktemp -d)
CAPTURE=
trap 'kill $CAPTURE $INTAKE 2>/dev/null || true; rm -rf "$DIR"' EXIT
# (json_lines comes from intake-setup.sh, which also starts an intake this script does not use)
. docs/bench/intake-setup.sh
if [ "${KIND:-padded}" = varied ]; then
    awk -v n="$LINES" 'BEGIN { srand(7); for (i = 0; i < n; i++) {
        m = sprintf("trace=%08x%08x%08x order %07d paid %07.2f EUR customer %06d via card gateway eu-west",
            rand() * 4294967295, rand() * 4294967295, rand() * 4294967295, i, rand() * 10000, int(rand() * 1000000))
        printf "{\"ts\":\"2026-12-01T12:00:00.000Z\",\"level\":\"info\",\"logger\":\"app\",\"message\":\"%s\",\"i\":%d}\n",
            substr(m, 1, 149 - 81 - length(i "")), i } }' > "$DIR/in.ndjson"
else
    json_lines "$LINES" "$DIR/in.ndjson"
fi
echo "input: $(wc -l < "$DIR/in.ndjson") lines, $(stat -c %s "$DIR/in.ndjson") bytes"

python3 docs/bench/capture-bodies.py "$((PORT + 1))" "$DIR/body.ndjson" & CAPTURE=$!
until curl -s "http://127.0.0.1:$((PORT + 1))/" >/dev/null; do sleep 0.05; done
"$BIN" ship --input "$DIR/in.ndjson" --format json --endpoint "http://127.0.0.1:$((PORT + 1))/logs" \
    --no-spill --no-gzip 2>/dev/null
BYTES=$(stat -c %s "$DIR/body.ndjson")
echo "bodies: $(wc -l < "$DIR/body.ndjson") events, $BYTES bytes ($((BYTES / $(wc -l < "$DIR/body.ndjson"))) per event as sent)"

count() { valgrind --tool=callgrind --callgrind-out-file="$DIR/cg.out" "$@" 2>"$DIR/err" >"$DIR/out"; sed -n 's/^summary: //p' "$DIR/cg.out"; }
printf "%-10s %5s %5s %14s %12s %8s\n" compressor level batch instructions "per byte" ratio
for batch in 200 1000; do
    base=$(LOGSHIP_BENCH_NDJSON="$DIR/body.ndjson" LOGSHIP_BENCH_BATCH=$batch LOGSHIP_BENCH_COMPRESSOR=none count "$BENCH")
    for comp in zlib-rs ${LIBDEFLATE:+libdeflate}; do
        for level in 1 2 3 4 5 6; do
            n=$(LOGSHIP_BENCH_NDJSON="$DIR/body.ndjson" LOGSHIP_BENCH_BATCH=$batch LOGSHIP_BENCH_LEVEL=$level \
                LOGSHIP_BENCH_COMPRESSOR=$comp count "$BENCH")
            ratio=$(sed -n 's/.*(ratio \([0-9.]*\)).*/\1/p' "$DIR/out")
            awk -v c="$comp" -v l="$level" -v b="$batch" -v n="$n" -v z="$base" -v by="$BYTES" -v r="$ratio" \
                'BEGIN { printf "%-10s %5d %5d %14d %12.2f %8s\n", c, l, b, n - z, (n - z) / by, r }'
        done
    done
done
