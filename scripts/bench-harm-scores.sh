#!/usr/bin/env bash
# Harm scores' cost: texts a second the bundled model scores on one core (HarmScoreBenchmark, on
# the held-out texts of scripts/harm-data.sh, each 280 characters), then the send path's server
# CPU with one score rule beside none, and with harm scores off beside on with a score rule: each
# pair side by side (scripts/bench-side-by-side.sh, the same binary twice), BENCH_ROUNDS times
# (default 3), judged by the median of the rounds' ratios.
# Goals: at least 100,000 texts a second; a send with one score rule at most 15% more CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${BOUNCER_BINARY:-.build/release/bouncer}
rounds=${BENCH_ROUNDS:-3} seconds=${BENCH_SECONDS:-15}
data=$(scripts/harm-data.sh)
echo "== harm scores: texts a second on one core"
.build/release/HarmScoreBenchmark "$data/test.csv" 5
rule='{"kind":"score","action":"flag","params":{"attribute":"toxicity","threshold":0.9}}'
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
compare() {  # name first-args: rounds of side-by-side runs; prints each round and the median ratio
  local name=$1 first_args=$2 out ratios=""
  echo "== $name (${rounds} rounds of ${seconds} s, side by side)"
  for round in $(seq "$rounds"); do
    out=$(BENCH_SERVE_ARGS_FIRST="$first_args" BENCH_RULE_SECOND="$rule" scripts/bench-side-by-side.sh "$binary" "$binary" "$seconds" 2>&1)
    read -r a b < <(echo "$out" | awk '/server CPU/ { for (i = 1; i <= NF; i++) if ($i == "CPU") printf "%s ", $(i + 1) } END { print "" }')
    echo "round $round: server CPU a send $a µs without, $b µs with: $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%+.1f%%", (b / a - 1) * 100 }')"
    ratios+="$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", b / a }')"$'\n'
  done
  printf "%s" "$ratios" | median | awk -v name="$name" '{ printf "%s: median %+.1f%% server CPU a send\n", name, ($1 - 1) * 100 }'
}
compare "one score rule beside none (goal: at most +15%)" ""
compare "harm scores on with one score rule, beside off (--harm-model none)" "--harm-model none"
