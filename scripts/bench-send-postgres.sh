#!/usr/bin/env bash
# The send path on PostgreSQL (a throwaway cluster, durable: fsync and synchronous commit on):
# one instance, then three instances on one database (a third of the 64 connections each), each
# beside a plain loop (pgbench, one client) that inserts one message per transaction into the
# same database. The rules and texts are scripts/bench-send.sh's; the per-user limit is off.
# Where the CPU went is the bouncer processes' and the database's, in seconds of CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${BOUNCER_BINARY:-.build/release/bouncer}
seconds=${BENCH_SECONDS:-10}
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/bouncer-pg-bench.XXXXXX")
source scripts/bench/log-dir.sh
logs=$(bench_log_dir "$work")
started=$(scripts/postgres-cluster.sh start)
cluster=$(echo "$started" | sed -n 1p) url=$(echo "$started" | sed -n 2p)
servers=()
cleanup() {
  for pid in "${servers[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  scripts/postgres-cluster.sh stop "$cluster"
  rm -rf "$work" "$logs"
}
trap cleanup EXIT
source scripts/bench/send-setup.sh
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

ticks() { local total=0; for pid in "$@"; do total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0))); done; echo "$total"; }
database_pids() { pgrep -u postgres -f "postgres" | tr '\n' ' '; }

plain_loop() {  # inserts per second, one message per transaction, into database $1
  cat >"$work/insert.sql" <<'SQL'
INSERT INTO messages (id, channel_id, user_id, text, state, flagged, edited, created_at, updated_at)
VALUES (md5(random()::text || clock_timestamp()::text), 'messaging:plain', 'plain', 'a plain message', 'delivered', 0, 0,
        '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
SQL
  chmod 644 "$work/insert.sql"; chmod 755 "$work"
  as_owner "$bin/pgbench" -n -c 1 -j 1 -T "${BENCH_LOOP_SECONDS:-5}" -f "$work/insert.sql" "${url%/postgres}/$1" 2>/dev/null |
    awk '/^tps/ {printf "%d\n", $3}'
}

run() {  # run NAME INSTANCES [POOLER_URL]: with a pooler's URL, the instances go through it
  local name=$1 count=$2 port base=18300 pids=() i
  psql "$url" -qc "CREATE DATABASE $name" >/dev/null
  mkdir -p "$work/$name"
  local database=("--database-url" "${url%/postgres}/$name")
  [ -n "${3:-}" ] && database=("--database-url" "${3%/postgres}/$name" "--database-listen-url" "${url%/postgres}/$name")
  for i in $(seq "$count"); do
    port=$((base + i))
    "$binary" serve --port "$port" --data-dir "$work/$name/data" "${database[@]}" --send-rate-per-user 0 \
      >"$logs/$name-$i.jsonl" 2>&1 &
    pids+=($!) servers+=($!)
    for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
  done
  prepare_send_bench "$binary" $((base + 1)) "$work/$name" >/dev/null
  sleep 1  # every instance compiles the imported rules
  local db_pids cpu_before db_before
  db_pids=$(database_pids) cpu_before=$(ticks "${pids[@]}") db_before=$(ticks $db_pids)
  for i in $(seq "$count"); do
    BENCH_TOKENS="$work/$name/tokens.txt" BENCH_TEXTS="$work/$name/texts.txt" \
      wrk -t1 -c$((64 / count)) -d"${seconds}s" --latency -s scripts/bench/send.lua "http://127.0.0.1:$((base + i))" >"$work/$name/wrk-$i.txt" &
  done
  wait $(jobs -p | tail -n "$count")
  local cpu=$(( $(ticks "${pids[@]}") - cpu_before )) db=$(( $(ticks $db_pids) - db_before ))
  cat "$work/$name"/wrk-*.txt | grep -E "Non-2xx|Socket errors" || true
  local rate p99
  rate=$(cat "$work/$name"/wrk-*.txt | awk '/^send:/ {sum += $2} END {print sum}')
  p99=$(cat "$work/$name"/wrk-*.txt | awk '/^send:/ {for (i = 1; i <= NF; i++) if ($i == "p99") {v = $(i + 1) + 0; if (v > max) max = v}} END {print max}')
  # The commit groups of the first instance: how many writes each carried, how long each took,
  # and how many took longer than 100 ms.
  curl -fsS "http://127.0.0.1:$((base + 1))/metrics" | awk '
    /^bouncer_store_commit_batch_size_sum/ { sum = $2 } /^bouncer_store_commit_batch_size_count/ { count = $2 }
    /^bouncer_store_commit_duration_seconds_sum/ { seconds = $2 }
    /^bouncer_store_commit_duration_seconds_bucket\{le="0.1"\}/ { fast = $2 }
    END { if (count > 0) printf "  instance 1: %d commits, mean %.1f writes and %.2f ms each, %d over 100 ms\n", count, sum / count, seconds / count * 1000, count - fast }'
  local loop
  loop=$(plain_loop "$name")
  echo "$name: $count instance(s) $rate messages/s, p99 ${p99} ms (worst instance); plain loop $loop inserts/s;" \
    "bouncer / loop: $(awk -v a="$rate" -v b="$loop" 'BEGIN { printf "%.2fx", a / b }');" \
    "CPU: bouncer $(awk -v t=$cpu -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t / hz }') s, PostgreSQL $(awk -v t=$db -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t / hz }') s in ${seconds} s"
  for pid in "${pids[@]}"; do kill -TERM "$pid"; done
  wait "${pids[@]}" 2>/dev/null || true
}

echo "== send path on PostgreSQL: 64 connections, 10,000 word + 50 regex rules, durable commits"
run one 1
run three 3
# The same through PgBouncer in transaction pooling mode (scripts/with-pgbouncer.sh, kept running
# beside the runs), one instance and three, each beside the direct figures above.
if [ "${BENCH_PGBOUNCER:-1}" = 1 ]; then
  BOUNCER_TEST_POSTGRES_URL=$url scripts/with-pgbouncer.sh bash -c \
    'echo "$BOUNCER_TEST_POSTGRES_POOLER_URL" >"$0/pooler"; while [ ! -f "$0/stop-pooler" ]; do sleep 0.2; done' "$work" 2>/dev/null &
  for _ in $(seq 100); do [ -s "$work/pooler" ] && break; sleep 0.1; done
  if [ -s "$work/pooler" ]; then
    run pooled_one 1 "$(cat "$work/pooler")"
    run pooled_three 3 "$(cat "$work/pooler")"
  else
    echo "PgBouncer did not start (is the pgbouncer package installed?): no figures through it" >&2
  fi
  touch "$work/stop-pooler"
  wait
fi
