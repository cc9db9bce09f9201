#!/usr/bin/env bash
# Fetches every Maven dependency and plugin java/ needs, so that the offline test run
# (crates/logship-jni/tests/maven.rs: `mvn -o verify`) works on a fresh clone. .ci/run calls
# it. Runs the one test that needs neither the native library nor the intake, so that
# failsafe resolves its JUnit provider too (it does so only when tests run).
set -euo pipefail
cd "$(dirname "$0")"
mvn -B -q dependency:go-offline "$@"
mvn -B -q verify -Dit.test=ThrowablesTest -Dlogship.build.dir="$PWD/../target/java/prefetch" "$@"
rm -rf ../target/java/prefetch
# Logback 1.2 for the version test (VersionsTest: the jar with the 1.2 line).
mvn -B -q dependency:get -Dartifact=ch.qos.logback:logback-classic:1.2.13 "$@"
mvn -B -q dependency:get -Dartifact=org.slf4j:slf4j-api:1.7.36 "$@"
# The JMH benchmark module (java/bench: JMH 1.37, its annotation processor); compiling it
# once resolves everything its offline smoke run (java/bench/run.sh --quick) needs.
mvn -B -q -f bench/pom.xml dependency:go-offline "$@"
mvn -B -q -f bench/pom.xml compile dependency:build-classpath -Dmdep.outputFile=/dev/null \
    -Dlogship.build.dir="$PWD/../target/java/prefetch-bench" "$@"
rm -rf ../target/java/prefetch-bench
