#!/usr/bin/env bash
# The send path with three rate rules in force beside none, in one run: the send bench's load
# (wrk and scripts/bench/send.lua, 64 connections, 200 users, about 5% of texts bounced) against
# one server, alternating runs with the rate rules disabled and enabled (in turns of A B, B A): a similar-text flood rule
# (20 in 60 s), a mentions rule (more than 5) and a links rule (more than 3, or in 60 s).
# Goal: with them, at least 90% of the rate without (the median of the turns' ratios).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${BOUNCER_BINARY:-.build/release/bouncer}
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/bouncer-rate-rules-bench.XXXXXX")
port=${BENCH_PORT:-18085}
"$binary" serve --port "$port" --data-dir "$work/data" --send-rate-per-user 0 --log-level "${BENCH_LOG_LEVEL:-warn}" >"$work/log.jsonl" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
source scripts/bench/send-setup.sh
prepare_send_bench "$binary" "$port" "$work"
admin=$("$binary" token --user bench-admin --role admin --data-dir "$work/data")

ids=()
for rule in '{"kind":"flood","action":"bounce","params":{"threshold":20,"window_seconds":60,"similarity":"similar"}}' \
            '{"kind":"mentions","action":"bounce","params":{"max":5}}' \
            '{"kind":"links","action":"flag","params":{"max":3,"window_seconds":60}}'; do
  ids+=("$(curl -fsS -X POST -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' -d "$rule" \
    "http://127.0.0.1:$port/v1/rules" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')")
done
enable() {  # enable true|false: the three rate rules
  for id in "${ids[@]}"; do
    curl -fsS -o /dev/null -X PATCH -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
      -d "{\"enabled\":$1}" "http://127.0.0.1:$port/v1/rules/$id"
  done
}

echo "== sends without and with three rate rules, alternating (${BENCH_RUNS:-8} runs each)"
# In turns of A B, then B A: the store grows with every run and each run is a little slower than
# the last, so always measuring the rules second would charge them with that growth. Each turn's
# two runs are compared with each other, and the judged figure is the median of those ratios: the
# host's speed drifts over minutes, and a pair of runs next to each other shares its drift.
for round in $(seq "${BENCH_RUNS:-8}"); do
  if [ $((round % 2)) = 1 ]; then
    enable false; send_run "$port" "$work" without
    enable true; send_run "$port" "$work" with
  else
    enable true; send_run "$port" "$work" with
    enable false; send_run "$port" "$work" without
  fi
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
ratios=$(paste "$work/with.txt" "$work/without.txt" | awk '{ printf "%.1f\n", $1 / $2 * 100 }')
echo "each turn, with as a share of without: $(echo "$ratios" | paste -sd' ')"
without=$(median <"$work/without.txt") with=$(median <"$work/with.txt")
awk -v a="$without" -v b="$with" -v r="$(echo "$ratios" | median)" 'BEGIN { printf "rate rules: %.0f messages/s with, %.0f without (medians); median turn: %.1f%% (goal: at least 90%%)\n", b, a, r }'
cpu_without=$(median <"$work/without-cpu.txt") cpu_with=$(median <"$work/with-cpu.txt")
awk -v a="$cpu_without" -v b="$cpu_with" 'BEGIN { printf "server CPU a message: %.1f µs with, %.1f without: the rules cost %.1f µs, %.0f%% more\n", b, a, b - a, (b / a - 1) * 100 }'
curl -fsS "http://127.0.0.1:$port/metrics" | grep -E '^bouncer_rule_matches_total\{rule_id="('"$(IFS='|'; echo "${ids[*]}")"')"' || true
