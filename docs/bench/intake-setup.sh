# Sourced by the bench scripts here (needs BIN, PORT and DIR, a temporary directory): the
# test intake (INTAKE_BIN, by default the logship-intake built next to BIN) on PORT in
# another process (INTAKE), `events`, the count the intake holds, and `wait_for_events N`.
INTAKE_BIN=${INTAKE_BIN:-$(dirname "$BIN")/logship-intake}
"$INTAKE_BIN" --port "$PORT" ${INTAKE_FLAGS:-} >/dev/null 2>&1 &
INTAKE=$!
until curl -sf "http://127.0.0.1:$PORT/_intake/stats" >/dev/null; do sleep 0.05; done
events() { curl -sf "http://127.0.0.1:$PORT/_intake/stats" | sed -E 's/.*"events":([0-9]+).*/\1/'; }
# Waits until the intake holds at least $1 events, asking every 20 ms with bash builtins
# only: a curl, sed and sleep per poll cost this 2-core machine a few milliseconds of CPU
# each, taken from the process being measured.
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
# CPU seconds (user + system) and peak RSS in MiB of a running process.
cpu_secs() { awk -v t="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$1/stat"; }
peak_rss_mib() { awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
# LINES 150-byte JSON lines (149 characters and a newline, unique ids) into file $2.
json_lines() {
    awk -v n="$1" 'BEGIN { srand(7); for (i = 0; i < n; i++) {
        m = sprintf("order %010d placed for customer %06d total %07.2f EUR", i, int(rand() * 1000000), rand() * 10000)
        l = sprintf("{\"ts\":\"2026-12-01T12:00:00.000Z\",\"level\":\"info\",\"logger\":\"app\",\"message\":\"%s\",\"i\":%d}", m, i)
        pad = 149 - length(l); while (pad-- > 0) m = m " "
        printf "{\"ts\":\"2026-12-01T12:00:00.000Z\",\"level\":\"info\",\"logger\":\"app\",\"message\":\"%s\",\"i\":%d}\n", m, i } }' > "$2"
}
