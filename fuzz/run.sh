#!/usr/bin/env bash
# Builds every fuzz target (nightly, cargo-fuzz) and runs each for SECONDS (default 600:
# ten minutes per target) from its committed seed corpus; exits non-zero if any target
# crashes.
#
#   fuzz/run.sh [SECONDS] [TARGET...]    (fuzz/run.sh 60 http_request: a short run of one)
#
# New inputs libFuzzer finds go to a scratch corpus (target/fuzz-corpus/<target>), not to
# the committed seeds; a crash is left in fuzz/artifacts/<target>/ (copy it to
# fuzz/regressions/<target>/ with the fix, so the stable replay test keeps it fixed).
# Needs: `rustup toolchain install nightly` and `cargo install cargo-fuzz --locked`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
cargo +nightly fuzz build -O
failed=()
for t in "${targets[@]}"; do
    scratch="target/fuzz-corpus/$t"
    mkdir -p "$scratch"
    echo "== fuzz $t for ${seconds}s"
    rc=0
    cargo +nightly fuzz run -O "$t" "$scratch" "fuzz/corpus/$t" -- \
        -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 >"target/fuzz-$t.log" 2>&1 || rc=$?
    grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY|==[0-9]+==ERROR)" \
        "target/fuzz-$t.log" || true
    if [ "$rc" -ne 0 ]; then
        failed+=("$t")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crashes in: ${failed[*]} (see target/fuzz-<target>.log and fuzz/artifacts/)" >&2
    exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, no crash"
