#!/usr/bin/env bash
# Log4j2's appender throughput benchmark (JMH; issue 31, item 10a): File, RandomAccessFile,
# MemoryMappedFile, the stock Http appender and logship's <Logship>, side by side, with
# `appender` (Appender.append) and `end2end` (logger.info), 150-byte messages, at 1, 2, 4,
# 8, 16, 32 and 64 threads. Http and Logship send to the in-repo intake in its count-only
# mode (a fast local sink); the table of what the intake received and what Logship
# dropped follows the ops/s tables.
#
#   java/bench/run.sh            # the full run (longer iterations than the documented ~6 min one)
#   java/bench/run.sh --quick    # 1 and 2 threads, one short iteration: proves it runs
#
# Environment: LOGSHIP_JAR and LOGSHIP_INTAKE name a built jar and intake (default: built
# by `LOGSHIP_SKIP_TESTS=1 java/build.sh`); BENCH_THREADS ("1 2 4 ..."), BENCH_OUT (the
# results folder, default target/java/bench/results), BENCH_JMH (JMH options instead of the
# defaults, e.g. "-f 1 -wi 0 -i 1 -r 1s"), MVN_FLAGS (e.g. -o).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
threads="1 2 4 8 16 32 64"
jmh=(-f 1 -wi 1 -w 2s -i 3 -r 2s)
if [ "${1:-}" = --quick ]; then
    threads="1 2"
    jmh=(-f 1 -wi 0 -i 1 -r 300ms)
fi
threads="${BENCH_THREADS:-$threads}"
# shellcheck disable=SC2206
[ -n "${BENCH_JMH:-}" ] && jmh=(${BENCH_JMH})
out="${BENCH_OUT:-$root/target/java/bench/results}"
jar="${LOGSHIP_JAR:-$root/target/java/logship.jar}"
intake_bin="${LOGSHIP_INTAKE:-$root/target/release/logship-intake}"
if [ -z "${LOGSHIP_JAR:-}" ] && { [ ! -f "$jar" ] || [ ! -x "$intake_bin" ]; }; then
    LOGSHIP_SKIP_TESTS=1 "$root/java/build.sh" >&2
fi
for f in "$jar" "$intake_bin"; do
    [ -e "$f" ] || { echo "run.sh: $f is missing (java/build.sh builds it)" >&2; exit 2; }
done

build="$out/maven"
mkdir -p "$out"
rm -f "$out"/*.csv "$out/stats.tsv" "$out/table.md"
# shellcheck disable=SC2086
mvn -B -q ${MVN_FLAGS:-} -f "$root/java/bench/pom.xml" -Dlogship.build.dir="$build" \
    compile dependency:build-classpath -Dmdep.outputFile="$out/classpath.txt" >&2
cp="$build/classes:$(cat "$out/classpath.txt"):$jar"

# The sink: our intake, count-only (reads, decodes and counts each line, checks nothing).
"$intake_bin" --port 0 --count-only --duration 7200 >"$out/intake.out" 2>"$out/intake.err" &
intake_pid=$!
trap 'kill "$intake_pid" 2>/dev/null || true' EXIT
url=""
for _ in $(seq 1 200); do
    url="$(sed -n 's/^listening on \(.*\)$/\1/p' "$out/intake.out" | head -n1)"
    [ -n "$url" ] && break
    kill -0 "$intake_pid" 2>/dev/null || { cat "$out/intake.err" >&2; exit 1; }
    sleep 0.05
done
[ -n "$url" ] || { echo "run.sh: the intake did not start" >&2; exit 1; }
url="${url%/}"

for t in $threads; do
    echo "== $t thread(s)" >&2
    java -cp "$cp" org.openjdk.jmh.Main 'dev.logship.bench.AppenderThroughputBenchmark' \
        "${jmh[@]}" -t "$t" -rf csv -rff "$out/t$t.csv" \
        -jvmArgsAppend "-Dbench.url=$url -Dbench.stats=$out/stats.tsv -Dbench.dir=$out/files" >&2
    rm -rf "$out/files"
done
java -cp "$cp" dev.logship.bench.Report "$out/stats.tsv" "$out"/t*.csv | tee "$out/table.md"
