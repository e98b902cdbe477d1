#!/usr/bin/env bash
# The moderators' queries on a large store: 1,000,000 messages, 100,000 flags and 100,000 appeals
# made by StoreGenerator, then GET /v1/review-queue, GET /v1/flags and GET /v1/appeals measured
# with wrk (p50, p99): the latency one moderator's tool sees (one connection), then under four at
# once. Then a page of one of the store's 1,000 channels, as a moderator and as a member (who sees
# less).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/bouncer-moderation-bench.XXXXXX")
port=${BENCH_PORT:-18083}
trap 'kill -TERM ${server:-0} 2>/dev/null; wait ${server:-0} 2>/dev/null; rm -rf "$work"' EXIT
echo "== generating ${BENCH_MESSAGES:-1000000} messages, ${BENCH_FLAGS:-100000} flags and ${BENCH_APPEALS:-100000} appeals"
.build/release/StoreGenerator "$work/data" "${BENCH_MESSAGES:-1000000}" "${BENCH_FLAGS:-100000}" "${BENCH_APPEALS:-100000}" | tail -1
.build/release/bouncer serve --port "$port" --data-dir "$work/data" --log-level warn >"$work/log.jsonl" 2>&1 &
server=$!
for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
moderator=$(.build/release/bouncer token --user bench-moderator --role moderator --data-dir "$work/data")
member=$(.build/release/bouncer token --user user42 --data-dir "$work/data")
# measure LABEL TOKEN PATH CONNECTIONS
measure() {
  printf '%s%s, %d connection(s): ' "$1" "$3" "$4"
  wrk -t1 -c"$4" -d"${BENCH_SECONDS:-5}s" --latency -H "Authorization: Bearer $2" "http://127.0.0.1:$port$3" \
    | awk '/^ +50%/ {p50=$2} /^ +99%/ {p99=$2} /Requests\/sec/ {rps=$2} /Non-2xx/ {bad=$NF}
           END {printf "p50 %s, p99 %s, %s req/s%s\n", p50, p99, rps, bad ? ", non-2xx " bad : ""}'
}
for connections in 1 4; do
  for path in "/v1/review-queue?state=open&limit=50" "/v1/flags?state=open&reason=spam&limit=50" "/v1/appeals?state=open&limit=50"; do
    measure "" "$moderator" "$path" "$connections"
  done
done
measure "moderator: " "$moderator" "/v1/channels/messaging:channel7/messages?limit=50" 1
measure "member: " "$member" "/v1/channels/messaging:channel7/messages?limit=50" 1
