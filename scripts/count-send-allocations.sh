#!/usr/bin/env bash
# What a durable send allocates on the server, counted rather than timed: the send bench's load
# (scripts/bench/send.lua, 10,000 word rules and 50 regexes) against each build given, with
# heaptrack attached to the running server only while the load runs. A count does not move with
# the host's speed as CPU time does, so two builds can be compared on any day; every allocation
# is a malloc and a free, and most of them reference counting besides.
#   scripts/count-send-allocations.sh [BINARY...]     (default: the release build)
# Each build prints its sends and allocations a send, then the sites that allocate most (per
# send, each by its innermost frame in Bouncer's own code) when COUNT_SITES is set (a number).
# COUNT_SECONDS (default 10) is how long the counted load runs.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v heaptrack >/dev/null || { echo "count-send-allocations: heaptrack is needed (Debian package heaptrack)" >&2; exit 2; }
command -v wrk >/dev/null || { echo "count-send-allocations: wrk is needed (Debian package wrk)" >&2; exit 2; }
[ $# -gt 0 ] || set -- .build/release/bouncer
seconds=${COUNT_SECONDS:-10}
port=${BENCH_PORT:-18084}
source scripts/bench/send-setup.sh

count() {   # binary
  local binary=$1 work server tracker sends
  work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/bouncer-count.XXXXXX")
  "$binary" serve --port "$port" --data-dir "$work/data" --send-rate-per-user 0 --log-level info >"$work/log.jsonl" 2>&1 &
  server=$!
  prepare_send_bench "$binary" "$port" "$work"
  # A few sends first, so that the counted ones meet warm caches and prepared statements.
  BENCH_TOKENS="$work/tokens.txt" BENCH_TEXTS="$work/texts.txt" \
    wrk -t1 -c64 -d2s -s scripts/bench/send.lua "http://127.0.0.1:$port" >/dev/null
  # Attached now, heaptrack counts from here on: the rules' compilation and the store's setup
  # are not a send's.
  heaptrack -o "$work/heaptrack" -p "$server" >"$work/heaptrack.log" 2>&1 &
  tracker=$!
  for _ in $(seq 600); do grep -q "injection finished" "$work/heaptrack.log" 2>/dev/null && break; sleep 0.1; done
  grep -q "injection finished" "$work/heaptrack.log" || { cat "$work/heaptrack.log" >&2; echo "count-send-allocations: heaptrack did not attach" >&2; exit 1; }
  BENCH_TOKENS="$work/tokens.txt" BENCH_TEXTS="$work/texts.txt" \
    wrk -t1 -c64 -d"${seconds}s" -s scripts/bench/send.lua "http://127.0.0.1:$port" >"$work/wrk.txt"
  kill -TERM "$server"
  wait "$server" 2>/dev/null || true
  wait "$tracker" 2>/dev/null || true
  grep -E "Non-2xx|Socket errors" "$work/wrk.txt" || true
  sends=$(awk '/requests in/ {print $1}' "$work/wrk.txt")
  heaptrack_print -f "$work"/heaptrack*.zst -p 0 -a 0 -T 0 -F "$work/stacks.txt" --flamegraph-cost-type allocations >/dev/null 2>&1
  python3 scripts/bench/allocation-sites.py "$work/stacks.txt" "$sends" "$binary" "${COUNT_SITES:-0}"
  rm -rf "$work"
}

for binary in "$@"; do count "$binary"; done
