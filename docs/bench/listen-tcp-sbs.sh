#!/usr/bin/env bash
# Side-by-side TCP listen rate (docs/performance.md, "Renovation 2"): a count-only intake,
# `ship --listen tcp://`, 1 M JSON lines from /tmp/lines.ndjson on one connection.
# usage: listen-sbs.sh LOGSHIP INTAKE_CMD...   ; TCP listen of 1M JSON lines, one connection
set -u
BIN=$1; shift
P=18791; L=18792
"$@" --port $P --count-only >/dev/null 2>&1 & I=$!
until curl -sf http://127.0.0.1:$P/_intake/stats >/dev/null; do sleep 0.05; done
$BIN ship --listen tcp://127.0.0.1:$L --endpoint http://127.0.0.1:$P/logs --no-spill 2>/dev/null & S=$!
until python3 -c "import socket;socket.create_connection(('127.0.0.1',$L)).close()" 2>/dev/null; do sleep 0.05; done
START=$(date +%s.%N)
python3 -c "
import socket,shutil
s=socket.create_connection(('127.0.0.1',$L)); f=open('/tmp/lines.ndjson','rb')
shutil.copyfileobj(f, s.makefile('wb')); s.close()"
until [ "$(curl -sf http://127.0.0.1:$P/_intake/stats | sed -E 's/.*"events":([0-9]+).*/\1/')" -ge 1000000 ] 2>/dev/null; do sleep 0.02; done
END=$(date +%s.%N)
CPU=$(awk -v t="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / t }' /proc/$S/stat)
echo "listen tcp: $(echo "1000000 / ($END - $START)" | bc) events/s, logship CPU ${CPU}s"
kill $S $I; wait 2>/dev/null
