#!/usr/bin/env bash
# GET /healthz with 64 keep-alive connections, side by side with nginx when the shared
# bench-vs-nginx.sh is beside the repository (../shared/tools), else Bouncer alone with wrk.
# BENCH_EVENT_LOOPS=1 gives Bouncer one event loop, as nginx there has one worker: on a machine
# that also runs the load generator, a loop a core leaves wrk less than a core of its own.
# BENCH_BINARY names another build to measure.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${BENCH_BINARY:-.build/release/bouncer}
data=$(mktemp -d)
port=${BENCH_PORT:-18081}
"$binary" serve --port "$port" --data-dir "$data" --log-level "${BENCH_LOG_LEVEL:-info}" \
  ${BENCH_EVENT_LOOPS:+--event-loops "$BENCH_EVENT_LOOPS"} >"$data/log.jsonl" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done
url="http://127.0.0.1:$port/healthz"
reference=../shared/tools/bench-vs-nginx.sh
echo "== GET /healthz, 64 connections (access log at ${BENCH_LOG_LEVEL:-info} level, ${BENCH_EVENT_LOOPS:-one a core} event loops)"
if [ -x "$reference" ] || [ -f "$reference" ]; then
  bash "$reference" "$url" 64 "${BENCH_SECONDS:-8}" "${BENCH_ROUNDS:-3}"
else
  echo "(no ../shared/tools/bench-vs-nginx.sh here: measuring Bouncer alone)"
  wrk -t1 -c64 -d"${BENCH_SECONDS:-8}s" --latency "$url"
fi
