#!/usr/bin/env bash
# A restart with a large rule set: 100,000 word rules (BENCH_RULES) imported, then the service
# started again and timed from exec to the first 200 of /readyz, three times without the compiled
# rules in <data-dir>/rules-cache (every database compiled) and three times with them (loaded).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/bouncer-restart-bench.XXXXXX")
port=${BENCH_PORT:-18084}
rules=${BENCH_RULES:-100000}
trap 'kill -TERM ${server:-0} 2>/dev/null; wait ${server:-0} 2>/dev/null; [ -n "${BENCH_KEEP:-}" ] || rm -rf "$work"' EXIT

start() {
  .build/release/bouncer serve --port "$port" --data-dir "$work/data" --log-level info >"$work/log.jsonl" 2>&1 &
  server=$!
}
stop() {
  kill -TERM "$server"; wait "$server" 2>/dev/null || true
}
# Seconds from now until /readyz answers 200.
ready_after() {
  local started=$1
  for _ in $(seq 3000); do
    curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    sleep 0.005
  done
  python3 -c "import time; print(f'{time.monotonic() - $started:.3f}')"
}
now() { python3 -c "import time; print(time.monotonic())"; }

start
ready_after "$(now)" >/dev/null
admin=$(.build/release/bouncer token --user bench-admin --role admin --data-dir "$work/data")
python3 -c "
import random
random.seed(7)
letters = 'abcdefghijklmnopqrstuvwxyz'
words = set()
while len(words) < $rules:
    words.add(''.join(random.choice(letters) for _ in range(random.randint(5, 10))))
print('\n'.join(sorted(words)))" >"$work/words.txt"
curl -fsS -X POST "http://127.0.0.1:$port/v1/rules/import?kind=word&action=bounce" -H "Authorization: Bearer $admin" \
  -H "Content-Type: text/plain" --data-binary @"$work/words.txt" >/dev/null
stop
echo "== restart to ready with $rules word rules (seconds)"
for cache in without with; do
  times=()
  for _ in 1 2 3; do
    [ "$cache" = without ] && rm -rf "$work/data/rules-cache"
    started=$(now); start; times+=("$(ready_after "$started")")
    loaded=$(grep -o '"databases_loaded":[0-9]*' "$work/log.jsonl" | head -1 | cut -d: -f2 || true)
    stop
  done
  echo "$cache compiled databases: ${times[*]} (databases loaded on the last start: ${loaded:-?})"
done
