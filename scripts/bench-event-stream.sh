#!/usr/bin/env bash
# Server-Sent Events at scale: 1,000 subscribers on GET /v1/events/stream while 1,000 bounced
# messages a second are committed (each one event) for 10 s: does every subscriber get every
# event, how long from commit to delivery (p99 goal: under 100 ms), and the server's memory.
# BENCH_SUBSCRIBERS, BENCH_EVENT_RATE and BENCH_SECONDS change the load.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${BOUNCER_BINARY:-.build/release/bouncer}
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/bouncer-stream-bench.XXXXXX")
port=${BENCH_PORT:-18085}
# A descriptor for each subscriber, on both sides.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
"$binary" serve --port "$port" --data-dir "$work/data" --send-rate-per-user 0 --log-level warn >"$work/log.jsonl" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
admin=$("$binary" token --user bench-admin --role admin --data-dir "$work/data")
curl -fsS -o /dev/null -X POST -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
  -d '{"kind":"word","pattern":"pear","action":"bounce"}' "http://127.0.0.1:$port/v1/rules"
{ "$binary" token --user bench-moderator --role moderator --data-dir "$work/data"
  for user in $(seq 64); do "$binary" token --user "sender$user" --data-dir "$work/data"; done; } >"$work/tokens.txt"
subscribers=${BENCH_SUBSCRIBERS:-1000} rate=${BENCH_EVENT_RATE:-1000} seconds=${BENCH_SECONDS:-10}
echo "== event stream: $subscribers subscribers, $rate events a second for $seconds s"
"${CC:-cc}" -O2 -o "$work/reader" scripts/bench/event_stream_reader.c
python3 scripts/bench/event_stream.py "$port" "$work/tokens.txt" "$server" "$subscribers" "$rate" "$seconds" "$work/reader" "$work"
