#!/usr/bin/env bash
# Sends with one webhook subscribed to every event type beside sends with none, in one run: the
# send bench's load (wrk and scripts/bench/send.lua, 64 connections, about 5% of texts bounced,
# each bounce an event, so a delivery) against one server, alternating runs without and with the
# webhook, whose receiver is nginx answering 204. Then how many deliveries were made and how.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${BOUNCER_BINARY:-.build/release/bouncer}
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/bouncer-webhook-bench.XXXXXX")
port=${BENCH_PORT:-18083}
receiver_port=${BENCH_RECEIVER_PORT:-18084}
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/nginx-body;
  server { listen 127.0.0.1:$receiver_port; location / { return 204; } }
}
CONF
nginx -c "$work/nginx.conf" -p "$work"
"$binary" serve --port "$port" --data-dir "$work/data" --send-rate-per-user 0 --webhook-allow-private \
  --log-level "${BENCH_LOG_LEVEL:-warn}" >"$work/log.jsonl" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; nginx -c "$work/nginx.conf" -p "$work" -s stop 2>/dev/null; rm -rf "$work"' EXIT
source scripts/bench/send-setup.sh
prepare_send_bench "$binary" "$port" "$work"
admin=$("$binary" token --user bench-admin --role admin --data-dir "$work/data")

echo "== sends: no webhook, then one webhook for every type (nginx answering 204), alternately"
runs=${BENCH_RUNS:-3}
for _ in $(seq "$runs"); do
  send_run "$port" "$work" none
  id=$(curl -fsS -X POST -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
       -d "{\"url\":\"http://127.0.0.1:$receiver_port/hook\",\"types\":[\"*\"]}" "http://127.0.0.1:$port/v1/webhooks" \
       | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
  send_run "$port" "$work" webhook
  # Its deliveries finish before the next run without it.
  for _ in $(seq 100); do
    pending=$(curl -fsS -H "Authorization: Bearer $admin" "http://127.0.0.1:$port/v1/webhooks/$id/deliveries?state=pending&limit=1" \
              | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["deliveries"]))')
    [ "$pending" = 0 ] && break
    sleep 0.2
  done
  delivered=$(curl -fsS -H "Authorization: Bearer $admin" "http://127.0.0.1:$port/metrics" \
              | awk '/^bouncer_webhook_attempts_total\{.*delivered/ {print $2}')
  echo "   deliveries made so far: ${delivered:-0} (pending now: $pending)"
  curl -fsS -o /dev/null -X DELETE -H "Authorization: Bearer $admin" "http://127.0.0.1:$port/v1/webhooks/$id"
done
median() { sort -n "$work/$1.txt" | awk -v runs="$runs" 'NR == int((runs + 1) / 2)'; }
none=$(median none) webhook=$(median webhook)
echo "webhooks: none $none/s, one for every type $webhook/s (medians of $runs runs)"
awk -v a="$none" -v b="$webhook" 'BEGIN { printf "with a webhook / without: %.1f%% (goal: at least 85%%)\n", b / a * 100 }'
