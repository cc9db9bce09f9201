# Sourced by follow-throughput.sh and follow-callgrind.sh (needs BIN, MB, PORT): a
# temporary directory DIR holding app.log, MB MiB of 100-byte lines with unique ids
# (LINES of them, BYTES bytes), the test intake (INTAKE_BIN, by default the logship-intake
# built next to BIN) on PORT in another process (INTAKE), and
# `events`, the count the intake holds, and `wait_for_events N`. The EXIT trap stops the intake and removes DIR.
DIR=$(mktemp -d)
trap 'kill $INTAKE 2>/dev/null || true; rm -rf "$DIR"' EXIT
LINES=$((MB * 1024 * 1024 / 100))
awk -v n="$LINES" 'BEGIN { for (i = 0; i < n; i++) printf "2026-12-01T12:00:00.000Z INFO  com.example.Orders - order %010d accepted for customer 4711 ok\n", i }' > "$DIR/app.log"
BYTES=$(stat -c %s "$DIR/app.log")
INTAKE_BIN=${INTAKE_BIN:-$(dirname "$BIN")/logship-intake}
"$INTAKE_BIN" --port "$PORT" ${INTAKE_FLAGS:-} >/dev/null 2>&1 &
INTAKE=$!
until curl -sf "http://127.0.0.1:$PORT/_intake/stats" >/dev/null; do sleep 0.05; done
events() { curl -sf "http://127.0.0.1:$PORT/_intake/stats" | sed -E 's/.*"events":([0-9]+).*/\1/'; }
# Waits until the intake holds at least $1 events, asking every 20 ms with bash builtins
# only: a curl, sed and sleep per poll cost this 2-core machine a few milliseconds of CPU
# each, taken from the follower being measured (`ship --input` has no poller).
exec {NAP_FD}<> <(:)
wait_for_events() {
    local reply
    while :; do
        if exec {conn}<>"/dev/tcp/127.0.0.1/$PORT"; then
            printf 'GET /_intake/stats HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&"$conn"
            IFS= read -r -d '' reply <&"$conn" || true
            exec {conn}>&-
            [[ $reply =~ \"events\":([0-9]+) ]] && (( BASH_REMATCH[1] >= $1 )) && return
        fi
        read -r -t 0.02 -u "$NAP_FD" || true
    done
}
