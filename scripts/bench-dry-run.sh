#!/usr/bin/env bash
# A dry run over a large store, alone and beside sends: StoreGenerator fills a store with
# 1,000,000 messages (BENCH_MESSAGES) and 10,000 flags, some reviewed; POST /v1/rules/dry-run then
# tries one new word rule and one new regex rule over all of them (goal: under 10 s). Then the send
# bench's load runs alone, and again with dry runs one after another for the whole run, and the
# two send rates are compared (goal: sends lose under 10%).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${BOUNCER_BINARY:-.build/release/bouncer}
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/bouncer-dry-run-bench.XXXXXX")
port=${BENCH_PORT:-18086}
messages=${BENCH_MESSAGES:-1000000}
echo "== generating $messages messages"
.build/release/StoreGenerator "$work/data" "$messages" "${BENCH_FLAGS:-10000}" | tail -1
"$binary" serve --port "$port" --data-dir "$work/data" --send-rate-per-user 0 --log-level warn >"$work/log.jsonl" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
source scripts/bench/send-setup.sh
prepare_send_bench "$binary" "$port" "$work"
moderator=$("$binary" token --user bench-moderator --role moderator --data-dir "$work/data")
# The generated texts are "generated chat message number N, hello there": the word rule matches
# every one (the most work a match costs: a sample check, a state change, a review lookup), the
# regex one in ten.
body="{\"rules\":[{\"kind\":\"word\",\"pattern\":\"hello\",\"action\":\"bounce\"},{\"kind\":\"regex\",\"pattern\":\"number [0-9]*7,\",\"action\":\"flag\"}],\"limit\":$messages}"
dry_run() {
  curl -fsS -X POST -H "Authorization: Bearer $moderator" -H 'Content-Type: application/json' -d "$body" \
    "http://127.0.0.1:$port/v1/rules/dry-run"
}

echo "== a dry run over $messages messages, alone"
for run in 1 2 3; do
  started=$(date +%s.%N)
  answer=$(dry_run)
  finished=$(date +%s.%N)
  echo "run $run: $(awk -v a="$started" -v b="$finished" 'BEGIN { printf "%.2f s", b - a }'); $(echo "$answer" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("scanned %d, matched %d, changes %s, precision %s, complete %s, %d ms in the server" % (r["scanned"], r["matched"], r["changes"], r["precision"], r["complete"], r["milliseconds"]))')"
done

seconds=${BENCH_SECONDS:-20}
run() {  # run NAME: one wrk run of the send load
  BENCH_TOKENS="$work/tokens.txt" BENCH_TEXTS="$work/texts.txt" \
    wrk -t1 -c64 -d"${seconds}s" -s scripts/bench/send.lua "http://127.0.0.1:$port" >"$work/wrk-$1.txt"
  grep -E "Non-2xx|Socket errors" "$work/wrk-$1.txt" || true
  awk '/Requests\/sec/ {print $2}' "$work/wrk-$1.txt"
}
echo "== sends alone, then beside dry runs (${seconds} s each)"
alone=$(run alone)
echo "sends alone: $alone messages/s"
( end=$(( $(date +%s) + seconds )); count=0
  while [ "$(date +%s)" -lt "$end" ]; do
    started=$(date +%s.%N); dry_run >/dev/null; finished=$(date +%s.%N); count=$((count + 1))
    awk -v a="$started" -v b="$finished" -v n="$count" 'BEGIN { printf "  dry run %d beside sends: %.2f s\n", n, b - a }'
  done ) >"$work/beside.txt" &
runner=$!
beside=$(run beside)
wait "$runner" || true
cat "$work/beside.txt"
echo "sends beside dry runs: $beside messages/s"
awk -v a="$alone" -v b="$beside" 'BEGIN { printf "dry runs beside sends: sends at %.1f%% of their rate alone (goal: losing under 10%%)\n", b / a * 100 }'
