#!/usr/bin/env bash
# Builds target/java/logship.jar, the one jar of logship for the JVM (Log4j2 plugin <Logship>
# and <BatchHttp>, Logback appender, the linux-x86_64 native library inside), runs its JUnit
# tests against the in-repo intake, and (with `install`) puts it into ~/.m2 as
# dev.logship:logship:0.1.0.
#
#   java/build.sh            # build + test: target/java/logship.jar
#   java/build.sh install    # the same, then mvn install
#   LOGSHIP_SKIP_TESTS=1 java/build.sh   # build only
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p logship-jni -p logship-intake
mkdir -p target/java/native/linux-x86_64
# Line tables are kept in release builds (backtraces); the jar needs none of the debug info.
objcopy --strip-debug target/release/liblogship_jni.so target/java/native/linux-x86_64/liblogship_jni.so 2>/dev/null \
    || cp target/release/liblogship_jni.so target/java/native/linux-x86_64/liblogship_jni.so
goal=${1:-verify}
skip=()
[ "${LOGSHIP_SKIP_TESTS:-}" = 1 ] && skip=(-DskipITs)
mvn -B -q -f java/pom.xml -Dlogship.intake="$PWD/target/release/logship-intake" "${skip[@]}" "$goal"
cp target/java/maven/logship-0.1.0.jar target/java/logship.jar
echo "target/java/logship.jar"
