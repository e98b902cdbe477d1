#!/usr/bin/env bash
# The send path: POST messages with 64 keep-alive connections (wrk and scripts/bench/send.lua,
# many users and channels, about 5% of texts bounced) against 10,000 word rules and 50 regex
# rules, durable (synchronous=FULL); then a plain one-transaction-per-message insert loop on the
# same disk. The per-user send limit is off: this measures the path, not the limiter.
# BENCH_CONNECTIONS changes the 64; BOUNCER_SYNCHRONOUS=NORMAL (read by the server) drops the
# sync of each commit, to see what the durable commit itself costs.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${BOUNCER_BINARY:-.build/release/bouncer}
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/bouncer-send-bench.XXXXXX")
port=${BENCH_PORT:-18082}
data="$work/data"
source scripts/bench/log-dir.sh
logs=$(bench_log_dir "$work")
"$binary" serve --port "$port" --data-dir "$data" --send-rate-per-user 0 --log-level "${BENCH_LOG_LEVEL:-info}" >"$logs/log.jsonl" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work" "$logs"' EXIT
source scripts/bench/send-setup.sh
prepare_send_bench "$binary" "$port" "$work"

connections=${BENCH_CONNECTIONS:-64}
echo "== send path: $connections connections, 10,000 word + 50 regex rules, synchronous=${BOUNCER_SYNCHRONOUS:-FULL}"
# Several runs, and their median: a run's figure moves with whatever else the host is doing.
# The server's CPU time per message too: it drifts with the host, but far less.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
# And the time the hypervisor gave this machine's cores to others ("steal"): a run that lost
# much of it measured a slower machine, not a slower server.
steal_ticks() { awk '/^cpu / {print $9}' /proc/stat; }
runs=${BENCH_RUNS:-3}
for run in $(seq "$runs"); do
  before=$(cpu_ticks) stolen_before=$(steal_ticks)
  # One wrk thread drives every connection: it needs about a third of a core, and on a machine
  # the server shares, a second thread mostly adds switching (16 interleaved pairs on two cores:
  # with two, 5% fewer messages a second and 8% more server CPU a message on average).
  BENCH_TOKENS="$work/tokens.txt" BENCH_TEXTS="$work/texts.txt" \
    wrk -t1 -c"$connections" -d"${BENCH_SECONDS:-10}s" --latency -s scripts/bench/send.lua "http://127.0.0.1:$port" >"$work/wrk-$run.txt"
  after=$(cpu_ticks) stolen=$(($(steal_ticks) - stolen_before))
  grep -E "Non-2xx|Socket errors" "$work/wrk-$run.txt" || true
  line=$(grep -E "^send:" "$work/wrk-$run.txt")
  messages=$(awk '/requests in/ {print $1}' "$work/wrk-$run.txt")
  cpu=$(awk -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n="$messages" 'BEGIN { printf "%.1f", (n > 0 ? ticks / hz / n * 1e6 : 0) }')
  steal=$(awk -v ticks="$stolen" -v hz="$(getconf CLK_TCK)" -v cores="$(nproc)" -v seconds="${BENCH_SECONDS:-10}" \
    'BEGIN { printf "%.1f", ticks / hz / (cores * seconds) * 100 }')
  echo "run $run: ${line#send: }; server CPU $cpu us a message ($messages messages); steal $steal% of the cores"
  echo "${line#send: }" >>"$work/runs.txt"
done
# The run with the median rate, as `send:`.
median=$(sort -n "$work/runs.txt" | awk -v runs="$runs" 'NR == int((runs + 1) / 2)')
echo "send: $median (the median of $runs runs)"
# How many messages each durable commit carried, over the whole run.
curl -fsS "http://127.0.0.1:$port/metrics" | awk '
  /^bouncer_store_commit_batch_size_sum/ { sum = $2 } /^bouncer_store_commit_batch_size_count/ { count = $2 }
  /^bouncer_store_commit_duration_seconds_sum/ { seconds = $2 }
  END { if (count > 0) printf "store commits: %d, mean %.1f writes and %.2f ms each\n", count, sum / count, seconds / count * 1000 }'

echo "== baseline on the same disk"
baseline=$(.build/release/StoreBenchmark "$work" "${BENCH_SECONDS:-5}")
echo "$baseline"
awk -v send="${median%% *}" -v line="$baseline" 'BEGIN {
  split(line, parts, ": "); base = parts[2] + 0
  if (base > 0) printf "send path / baseline: %.2fx\n", send / base }'
