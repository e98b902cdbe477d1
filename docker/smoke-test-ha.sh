#!/usr/bin/env bash
# smoke-test-ha.sh - the `ha` profile of docker/compose.yaml as deployed: pg_auto_failover's
# monitor, a primary and a synchronous standby, three instances on the multi-host URL and nginx in
# front.
#
#   bash docker/smoke-test-ha.sh
#
# 1. builds the images (BuildKit, --network host, as docker/smoke-test.sh does) and starts the
#    profile under a project name of its own;
# 2. waits (bounded) for GET /readyz = 200 through nginx and for a primary with a secondary;
# 3. sends through nginx, then kills the primary's container (SIGKILL) while sending on: every
#    answer is 201 or 503 with Retry-After, sends succeed again within 10 s of the kill, and every
#    acknowledged message is read back afterwards;
# 4. adds a rule after the failover: it is in force on all three instances within a second;
# 5. removes the project's containers and volumes (trap), keeps the images.
# Only 127.0.0.1 is ever contacted.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
project=bouncer-ha-smoke-$$
export BOUNCER_JWT_SECRET=${BOUNCER_JWT_SECRET:-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')}
export POSTGRES_PASSWORD=${POSTGRES_PASSWORD:-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')}
if docker compose version >/dev/null 2>&1; then compose_command=(docker compose); else compose_command=(docker-compose); fi
compose() { "${compose_command[@]}" -f compose.yaml -p "$project" --profile ha "$@"; }
log() { printf '[ha-smoke +%3ss] %s\n' "$SECONDS" "$*" >&2; }
fail() { log "FAIL: $*"; compose logs --tail 100 >&2 || true; exit 1; }
work=$(mktemp -d)
trap 'compose down -v --remove-orphans >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

command -v docker >/dev/null || fail "docker is not installed"
docker info >/dev/null 2>&1 || fail "the docker engine is not reachable ('docker info' fails)"
"${compose_command[@]}" version >/dev/null 2>&1 || fail "neither 'docker compose' nor 'docker-compose' is installed"
base=http://127.0.0.1:8082
# shellcheck source=docker/buildkit.sh
source ./buildkit.sh

log "building the images"
build_log=$work/build.log
for image in "bouncer:latest Dockerfile .." "bouncer-postgres-ha:latest postgres-ha.Dockerfile ." "bouncer-balancer:latest nginx.Dockerfile ."; do
  read -r tag file context <<<"$image"
  docker_build --network host -f "$file" -t "$tag" "$context" >>"$build_log" 2>&1 \
    || { tail -n 40 "$build_log" >&2; fail "building $tag failed"; }
done
log "starting ${compose_command[*]} --profile ha"
compose up -d --no-build >/dev/null || fail "compose up failed"

state() {  # "pg-node1 primary" lines, from the monitor
  compose exec -T pg-monitor pg_autoctl show state --pgdata /var/lib/postgresql/data/pgdata --json 2>/dev/null |
    python3 -c 'import json, sys; [print(n["nodename"], n["current_group_state"]) for n in json.load(sys.stdin)]' 2>/dev/null || true
}
for _ in $(seq 180); do
  curl -fsS "$base/readyz" >/dev/null 2>&1 && state | grep -q ' secondary$' && break
  sleep 1
done
curl -fsS "$base/readyz" >/dev/null || fail "not ready through nginx within 180 s"
primary=$(state | awk '$2 == "primary" {print $1}')
[ -n "$primary" ] && state | grep -q ' secondary$' || fail "no primary with a secondary: $(state)"
admin=$(compose exec -T bouncer-ha-1 bouncer token --user smoke-admin --role admin) || fail "cannot mint a token"
user=$(compose exec -T bouncer-ha-1 bouncer token --user smoke-user) || fail "cannot mint a token"

send() {  # send ID TEXT: prints "status retry-after action" of one send through nginx
  local headers=$work/headers body=$work/body status
  status=$(curl -sS -m 15 -D "$headers" -o "$body" -w '%{http_code}' -X POST -H "Authorization: Bearer $user" \
    -H 'Content-Type: application/json' --data "{\"id\":\"$1\",\"text\":\"$2\"}" "$base/v1/channels/messaging:ha/messages" || echo 000)
  printf '%s %s %s\n' "$status" "$(grep -i '^retry-after:' "$headers" | tr -d '\r' | awk '{print $2}')" \
    "$(grep -o '"action":"[a-z_]*"' "$body" | head -1)"
}
now() { date +%s.%N; }

log "sending, then killing the primary ($primary)"
acknowledged=$work/acknowledged
: >"$acknowledged"
for i in $(seq 20); do
  [ "$(send "before-$i" "before $i" | cut -d' ' -f1)" = 201 ] || fail "send before-$i before the kill"
  echo "before-$i" >>"$acknowledged"
done
compose kill -s KILL "$primary" >/dev/null
killed=$(now)
recovered=""
refused=0
for i in $(seq 2000); do
  read -r status retry _ <<<"$(send "after-$i" "after $i")"
  case $status in
    201) echo "after-$i" >>"$acknowledged"
         if [ "$refused" -gt 0 ] && [ -z "$recovered" ]; then recovered=$(python3 -c "print(f'{$(now) - $killed:.2f}')"); fi ;;
    503) [ -n "$retry" ] || fail "a 503 without Retry-After"; refused=$((refused + 1)) ;;
    *) fail "send after-$i during the failover answered $status" ;;
  esac
  [ -n "$recovered" ] && [ "$i" -gt 50 ] && break
  python3 -c "import sys; sys.exit(0 if $(now) - $killed < 60 else 1)" || break
done
[ -n "$recovered" ] || fail "sends did not succeed again within 60 s of the kill ($refused answered 503)"
python3 -c "import sys; sys.exit(0 if $recovered <= 10 else 1)" || fail "sends succeeded again only after $recovered s (limit 10 s)"
log "sends succeeded again $recovered s after the kill; $refused answered 503"

lost=0
while read -r id; do
  status=$(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $user" "$base/v1/messages/$id")
  [ "$status" = 200 ] || { log "acknowledged $id reads $status"; lost=$((lost + 1)); }
done <"$acknowledged"
[ "$lost" = 0 ] || fail "$lost acknowledged messages missing after the failover"
log "all $(wc -l <"$acknowledged") acknowledged messages read back"

log "a rule added after the failover bounces on all three instances"
status=$(curl -sS -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
  --data '{"kind":"word","pattern":"pineapple","action":"bounce"}' "$base/v1/rules")
[ "$status" = 201 ] || fail "adding the rule: $status"
sleep 1
for i in $(seq 9); do
  answer=$(send "rule-$i" "pineapple $i")
  [[ "$answer" == *'"action":"bounce"' ]] || fail "send $i a second after the change: $answer"
done
log "ok"
