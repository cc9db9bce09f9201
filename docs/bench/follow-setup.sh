# Sourced by follow-throughput.sh and follow-callgrind.sh (needs BIN, MB, PORT): a
# temporary directory DIR holding app.log, MB MiB of 100-byte lines with unique ids
# (LINES of them, BYTES bytes), the test intake (INTAKE_BIN, by default the logship-intake
# built next to BIN) on PORT in another process (INTAKE), and
# `events`, the count the intake holds, and `wait_for_events N` (intake-setup.sh). The EXIT trap stops the intake and removes DIR.
DIR=$(mktemp -d)
trap 'kill $INTAKE 2>/dev/null || true; rm -rf "$DIR"' EXIT
LINES=$((MB * 1024 * 1024 / 100))
awk -v n="$LINES" 'BEGIN { for (i = 0; i < n; i++) printf "2026-12-01T12:00:00.000Z INFO  com.example.Orders - order %010d accepted for customer 4711 ok\n", i }' > "$DIR/app.log"
BYTES=$(stat -c %s "$DIR/app.log")
. "$(dirname "${BASH_SOURCE[0]}")/intake-setup.sh"
