#!/usr/bin/env bash
# A backup of a large live store beside sends at full speed: StoreGenerator fills a store with
# 1,000,000 messages (BENCH_MESSAGES), the send benchmark's load runs for the whole backup, and
# `POST /v1/admin/backup` is timed from request to answer. Prints the backup's time and size, and
# what the sends did meanwhile.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${BOUNCER_BINARY:-.build/release/bouncer}
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/bouncer-backup-bench.XXXXXX")
port=${BENCH_PORT:-18085}
trap 'kill -TERM ${server:-0} ${load:-0} 2>/dev/null; wait ${server:-0} 2>/dev/null; rm -rf "$work"' EXIT
echo "== generating ${BENCH_MESSAGES:-1000000} messages"
.build/release/StoreGenerator "$work/data" "${BENCH_MESSAGES:-1000000}" "${BENCH_FLAGS:-10000}" | tail -1
"$binary" serve --port "$port" --data-dir "$work/data" --send-rate-per-user 0 --log-level warn >"$work/log.jsonl" 2>&1 &
server=$!
source scripts/bench/send-setup.sh
prepare_send_bench "$binary" "$port" "$work"
admin=$("$binary" token --user bench-admin --role admin --data-dir "$work/data")
BENCH_TOKENS="$work/tokens.txt" BENCH_TEXTS="$work/texts.txt" \
  wrk -t1 -c64 -d"${BENCH_LOAD_SECONDS:-120}s" --latency -s scripts/bench/send.lua "http://127.0.0.1:$port" >"$work/wrk.txt" &
load=$!
sleep 2
started=$(date +%s.%N)
answer=$(curl -sS -X POST -H "Authorization: Bearer $admin" "http://127.0.0.1:$port/v1/admin/backup")
finished=$(date +%s.%N)
kill -INT "$load" 2>/dev/null || true
wait "$load" 2>/dev/null || true
echo "backup beside full-speed sends: $(awk -v a="$started" -v b="$finished" 'BEGIN { printf "%.1f s", b - a }'); $answer"
grep -E "^send:|requests in|Non-2xx" "$work/wrk.txt" || true
