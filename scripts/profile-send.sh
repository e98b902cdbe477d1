#!/usr/bin/env bash
# The send path's CPU budget, stage by stage: the send bench's load (scripts/bench/send.lua: 64
# connections, 10,000 word rules and 50 regexes, durable commits) against the release binary,
# sampled with `perf record -e cpu-clock --call-graph dwarf` (no hardware counters needed), then each stage's
# inclusive share of the server's samples (scripts/bench/send-budget.py), turned into µs a send
# with the server's CPU time a send in an unprofiled run of the same load just before.
#   scripts/profile-send.sh             -> the table, and the raw report under $work
set -euo pipefail
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "profile-send: perf is needed (Debian package linux-perf)" >&2; exit 2; }
binary=${BOUNCER_BINARY:-.build/release/bouncer}
seconds=${PROFILE_SECONDS:-15}
work=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-profile.XXXXXX")
port=${BENCH_PORT:-18083}
source scripts/bench/log-dir.sh
logs=$(bench_log_dir "$work")
"$binary" serve --port "$port" --data-dir "$work/data" --send-rate-per-user 0 --log-level info >"$logs/log.jsonl" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; [ "$logs" = "$work" ] || rm -rf "$logs"; echo "raw profile: $work/perf.data"' EXIT
source scripts/bench/send-setup.sh
prepare_send_bench "$binary" "$port" "$work"
load() {   # seconds, output
  BENCH_TOKENS="$work/tokens.txt" BENCH_TEXTS="$work/texts.txt" wrk -t1 -c64 -d"$1s" -s scripts/bench/send.lua "http://127.0.0.1:$port" >"$2"
}
# Warm the process (the rule set's first scans, the store's pages) before measuring.
load 3 /dev/null
# The server's CPU time a send, unprofiled: sampling with call graphs slows the server itself.
before=$(awk '{print $14 + $15}' "/proc/$server/stat")
load "$seconds" "$work/wrk.txt"
after=$(awk '{print $14 + $15}' "/proc/$server/stat")
messages=$(awk '/requests in/ {print $1}' "$work/wrk.txt")
cpu=$(awk -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n="$messages" 'BEGIN { printf "%.1f", ticks / hz / n * 1e6 }')
grep -E "^send:" "$work/wrk.txt"
echo "server CPU: $cpu µs a send ($messages sends in ${seconds}s, unprofiled)"
# Then the same load, sampled: each stage's share of the server's samples.
load "$seconds" "$work/wrk-profiled.txt" &
loading=$!
perf record -e cpu-clock -F "${PROFILE_FREQUENCY:-299}" --call-graph "${PROFILE_CALL_GRAPH:-dwarf,16384}" -p "$server" -o "$work/perf.data" -- sleep "$((seconds - 1))" 2>"$work/perf-record.log"
wait $loading
perf report -i "$work/perf.data" --children --no-demangle --stdio --percent-limit 0.3 -g none --sort symbol 2>/dev/null \
  >"$work/report.txt"
python3 scripts/bench/send-budget.py "$work/report.txt" "$cpu"
