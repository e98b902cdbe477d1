# Sourced by the send-path benchmarks. `prepare_send_bench BINARY PORT WORK` waits for the server
# on PORT (its store in WORK/data), then gives it the benchmark's rules (10,000 words that bounce,
# 50 regexes that flag) and writes WORK/texts.txt and a token for each of 200 users to
# WORK/tokens.txt, for scripts/bench/send.lua. `send_run PORT WORK NAME` runs the send load once
# (BENCH_SECONDS, default 10) and appends its rate to WORK/NAME.txt and the server's CPU time a
# message (µs) to WORK/NAME-cpu.txt.
prepare_send_bench() {
  local binary=$1 port=$2 work=$3 admin
  for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
  python3 scripts/bench/rules-and-texts.py "$work"
  admin=$("$binary" token --user bench-admin --role admin --data-dir "$work/data")
  curl -fsS -o /dev/null -X POST -H "Authorization: Bearer $admin" -H 'Content-Type: text/plain' \
       --data-binary @"$work/words.txt" "http://127.0.0.1:$port/v1/rules/import?kind=word&action=bounce"
  curl -fsS -o /dev/null -X POST -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
       --data-binary @"$work/regexes.json" "http://127.0.0.1:$port/v1/rules/import"
  for user in $(seq 200); do "$binary" token --user "user$user" --ttl 86400 --data-dir "$work/data"; done >"$work/tokens.txt"
}

send_run() {
  local port=$1 work=$2 name=$3 rate server before messages cpu
  # The server's CPU time a message too: it moves far less with the host's drift than the rate.
  server=$(ss -ltnpH "sport = :$port" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
  before=$( [ -n "$server" ] && awk '{print $14 + $15}' "/proc/$server/stat" || echo 0)
  BENCH_TOKENS="$work/tokens.txt" BENCH_TEXTS="$work/texts.txt" \
    wrk -t1 -c64 -d"${BENCH_SECONDS:-10}s" -s scripts/bench/send.lua "http://127.0.0.1:$port" >"$work/wrk.txt"
  grep -E "Non-2xx|Socket errors" "$work/wrk.txt" || true
  rate=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")
  messages=$(awk '/requests in/ {print $1}' "$work/wrk.txt")
  cpu=$( [ -n "$server" ] && awk -v ticks=$(( $(awk '{print $14 + $15}' "/proc/$server/stat") - before )) -v hz="$(getconf CLK_TCK)" \
    -v n="$messages" 'BEGIN { printf "%.1f", (n > 0 ? ticks / hz / n * 1e6 : 0) }' || echo "?")
  echo "$name: $rate messages/s, server CPU $cpu µs a message"
  echo "$rate" >>"$work/$name.txt"
  echo "$cpu" >>"$work/$name-cpu.txt"
}
