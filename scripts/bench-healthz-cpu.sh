#!/usr/bin/env bash
# GET /healthz against nginx and one or more Bouncer builds, in turn, for several rounds: each
# run's requests a second and the server's CPU a request (user and kernel, from /proc). nginx has
# one worker and no access log; each Bouncer has one event loop and its access log at info, as it
# runs by default. On a machine that also runs the load generator, requests a second swing by
# 10-20% from run to run, for nginx too, and so does the kernel's share of the CPU a request: each
# round's figures are taken against nginx's in the same round, and the median of those printed.
# The user time a request, which the host moves least, is the figure to compare builds by.
#
#   scripts/bench-healthz-cpu.sh [SECONDS] [ROUNDS] [BINARY...]   (default: 5 s, 3 rounds, this build)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-5}; rounds=${2:-3}; shift $(($# > 2 ? 2 : $#))
binaries=("$@"); [ ${#binaries[@]} -gt 0 ] || binaries=(.build/release/bouncer)
for tool in nginx wrk; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install $tool)" >&2; exit 1; }
done
hz=$(getconf CLK_TCK)
work=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-healthz-cpu.XXXXXX")
declare -a pids=()
cleanup() { for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

cat >"$work/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 8192; }
http {
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:18300;
    location / { default_type application/json; return 200 '{"status":"ok"}'; }
  }
}
EOF
nginx -c "$work/nginx.conf" & pids+=($!)
names=(nginx); ports=(18300); serving=()
for index in "${!binaries[@]}"; do
  port=$((18301 + index))
  mkdir -p "$work/$index"
  "${binaries[$index]}" serve --port "$port" --data-dir "$work/$index" --event-loops 1 >"$work/$index/log.jsonl" 2>&1 &
  pids+=($!); serving+=($!)
  names+=("${binaries[$index]}"); ports+=("$port")
done
for index in "${!ports[@]}"; do
  answering=false
  for _ in $(seq 100); do
    curl -fsS -o /dev/null "http://127.0.0.1:${ports[$index]}/healthz" 2>/dev/null && { answering=true; break; }
    kill -0 "${pids[$index]}" 2>/dev/null || break
    sleep 0.1
  done
  # A server that does not answer (an older build that lacks a flag, say) is named here, with the
  # end of its log, rather than failing later at its /proc entry.
  if ! $answering; then
    echo "${names[$index]} is not answering on port ${ports[$index]}" >&2
    tail -5 "$([ "$index" = 0 ] && echo "$work/nginx-error.log" || echo "$work/$((index - 1))/log.jsonl")" >&2 2>/dev/null || true
    exit 1
  fi
done
process() {  # index -> the pid doing the work: nginx's worker, or the Bouncer
  if [ "$1" = 0 ]; then pgrep -P "${pids[0]}" -f "nginx: worker"; else echo "${serving[$(($1 - 1))]}"; fi
}
ticks() { awk '{print $14, $15}' "/proc/$1/stat"; }

declare -A results=()
for round in $(seq "$rounds"); do
  for index in "${!names[@]}"; do
    pid=$(process "$index")
    read -r user0 kernel0 < <(ticks "$pid")
    wrk -t1 -c64 -d"${seconds}s" "http://127.0.0.1:${ports[$index]}/healthz" >"$work/wrk.txt"
    read -r user1 kernel1 < <(ticks "$pid")
    line=$(awk -v n="$(awk '/requests in/ {print $1}' "$work/wrk.txt")" -v s="$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")" \
               -v user=$((user1 - user0)) -v kernel=$((kernel1 - kernel0)) -v hz="$hz" \
      'BEGIN { us = 1e6 / hz / n; printf "%.0f %.2f %.2f %.2f", s, (user + kernel) * us, user * us, kernel * us }')
    results[$index]+="$line"$'\n'
    read -r rate cpu user kernel <<<"$line"
    echo "round $round: ${names[$index]}: $rate requests a second, CPU $cpu us a request (user $user, kernel $kernel)"
  done
done
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
column() { printf '%s' "${results[$1]}" | awk -v c="$2" '{print $c}'; }
# Each round's figures against nginx's in the same round, then their median: the host's speed
# moves from round to round, for both alike.
echo "median of $rounds rounds: nginx $(column 0 1 | median) requests a second, CPU $(column 0 2 | median) us a request (user $(column 0 3 | median))"
for index in "${!names[@]}"; do
  [ "$index" = 0 ] && continue
  rate_ratio=$(paste <(column "$index" 1) <(column 0 1) | awk '{printf "%.3f\n", $1 / $2}' | median)
  cpu_ratio=$(paste <(column "$index" 2) <(column 0 2) | awk '{printf "%.3f\n", $2 / $1}' | median)
  echo "median of $rounds rounds: ${names[$index]} $(column "$index" 1 | median) requests a second, CPU $(column "$index" 2 | median) us a request (user $(column "$index" 3 | median));" \
       "against nginx round by round: $rate_ratio of its requests a second, nginx's CPU a request / this one's $cpu_ratio"
done
