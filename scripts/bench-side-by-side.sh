#!/usr/bin/env bash
# Compares two server binaries on the send path by running them at the same time, each with its
# own store and its own load (one wrk thread, 32 connections, scripts/bench/send.lua): on a shared
# machine, whatever else the host does then weighs on both alike, where runs one after the other
# can differ by 30% for the same binary. Prints each one's messages, server CPU a message and p99 latency.
# BENCH_ROUTE=healthz compares GET /healthz instead, with 64 keep-alive connections each.
# BENCH_EVENT_LOOPS=1 runs each server with that many event loops (default: one a core).
# BENCH_CONFIG_SECOND='{"strike_policy":...}' PATCHes the second server's /v1/config before the
# load: one binary given twice then compares a setting on against off.
# BENCH_RULE_SECOND='{"kind":"score",...}' adds that rule to the second server's benchmark rules.
# BENCH_SERVE_ARGS_FIRST / BENCH_SERVE_ARGS_SECOND: more `serve` options for one server
# (`--harm-model none`).
#
#   scripts/bench-side-by-side.sh BINARY_A BINARY_B [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 BINARY_A BINARY_B [SECONDS]" >&2; exit 2; }
first=$1 second=$2 seconds=${3:-10} route=${BENCH_ROUTE:-send}
case $route in send|healthz) ;; *) echo "BENCH_ROUTE must be send or healthz" >&2; exit 2 ;; esac
hz=$(getconf CLK_TCK)
declare -a dirs=() logs=() servers=()
cleanup() {
  for pid in "${servers[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for dir in "${dirs[@]}" "${logs[@]}"; do rm -rf "$dir"; done
}
trap cleanup EXIT

source scripts/bench/send-setup.sh
source scripts/bench/log-dir.sh
start() {  # binary port extra-args: a server on its own store, with the benchmark's rules and tokens
  local binary=$1 port=$2 extra=$3 work log
  work=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-side-by-side.XXXXXX")
  log=$(bench_log_dir "$work")
  dirs+=("$work")
  [ "$log" = "$work" ] || logs+=("$log")
  # shellcheck disable=SC2086
  "$binary" serve --port "$port" --data-dir "$work/data" --send-rate-per-user 0 ${BENCH_EVENT_LOOPS:+--event-loops "$BENCH_EVENT_LOOPS"} \
    $extra >"$log/log.jsonl" 2>&1 &
  servers+=($!)
  if [ "$route" = send ]; then
    prepare_send_bench "$binary" "$port" "$work"
  else
    for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
  fi
}
start "$first" 18201 "${BENCH_SERVE_ARGS_FIRST:-}"
start "$second" 18202 "${BENCH_SERVE_ARGS_SECOND:-}"
if [ -n "${BENCH_CONFIG_SECOND:-}" ]; then
  admin=$("$second" token --user bench-admin --role admin --data-dir "${dirs[1]}/data")
  curl -fsS -o /dev/null -X PATCH -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
       --data-binary "$BENCH_CONFIG_SECOND" "http://127.0.0.1:18202/v1/config"
  echo "second server's settings: $BENCH_CONFIG_SECOND"
fi
if [ -n "${BENCH_RULE_SECOND:-}" ]; then
  admin=$("$second" token --user bench-admin --role admin --data-dir "${dirs[1]}/data")
  curl -fsS -o /dev/null -X POST -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
       --data-binary "$BENCH_RULE_SECOND" "http://127.0.0.1:18202/v1/rules"
  echo "second server's added rule: $BENCH_RULE_SECOND"
fi
ticks() { awk '{print $14 + $15}' "/proc/${servers[$1]}/stat"; }  # index -> the server's CPU ticks
user_ticks() { awk '{print $14}' "/proc/${servers[$1]}/stat"; }   # of which in user space
declare -a before=() before_user=() loads=()
for index in 0 1; do
  before+=("$(ticks "$index")")
  before_user+=("$(user_ticks "$index")")
  if [ "$route" = send ]; then
    BENCH_TOKENS="${dirs[$index]}/tokens.txt" BENCH_TEXTS="${dirs[$index]}/texts.txt" \
      wrk -t1 -c32 -d"${seconds}s" -s scripts/bench/send.lua "http://127.0.0.1:$((18201 + index))" >"${dirs[$index]}/wrk.txt" &
  else
    wrk -t1 -c64 -d"${seconds}s" --latency "http://127.0.0.1:$((18201 + index))/healthz" >"${dirs[$index]}/wrk.txt" &
  fi
  loads+=($!)
done
wait "${loads[@]}"
for index in 0 1; do
  work=${dirs[$index]}
  binary=$([ "$index" = 0 ] && echo "$first" || echo "$second")
  messages=$(awk '/requests in/ {print $1}' "$work/wrk.txt")
  p99=$(grep -oE "p99 [0-9.]+ ms" "$work/wrk.txt" || awk '$1 == "99%" {print "p99 " $2}' "$work/wrk.txt")
  awk -v name="$binary" -v n="$messages" -v ticks=$(($(ticks "$index") - ${before[$index]})) \
      -v user=$(($(user_ticks "$index") - ${before_user[$index]})) -v hz="$hz" -v p99="$p99" \
    'BEGIN { us = n > 0 ? 1e6 / hz / n : 0
             printf "%s: %d requests, server CPU %.1f us a request (user %.1f, kernel %.1f), %s\n", name, n, ticks * us, user * us, (ticks - user) * us, p99 }'
done
