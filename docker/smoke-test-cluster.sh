#!/usr/bin/env bash
# smoke-test-cluster.sh - the `cluster` profile of docker/compose.yaml as deployed: PostgreSQL,
# three instances on it and nginx in front (round robin).
#
#   bash docker/smoke-test-cluster.sh
#
# 1. builds the images (BuildKit, --network host, as docker/smoke-test.sh does) and starts the
#    profile under a project name of its own, with Compose v2 (`docker compose`) or v1.28+
#    (`docker-compose`, which has profiles but builds without BuildKit);
# 2. waits (bounded) for GET /readyz = 200 through nginx;
# 3. adds a rule through nginx (one instance), then sends through nginx until every instance has
#    answered: every send must bounce within a second of the change (each instance has it);
# 4. restarts PostgreSQL: sends answer 503 meanwhile and succeed again once it is back;
# 5. removes the project's containers and volumes (trap), keeps the images.
# Only 127.0.0.1 is ever contacted.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
project=bouncer-cluster-smoke-$$
export BOUNCER_JWT_SECRET=${BOUNCER_JWT_SECRET:-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')}
export POSTGRES_PASSWORD=${POSTGRES_PASSWORD:-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')}
if docker compose version >/dev/null 2>&1; then compose_command=(docker compose); else compose_command=(docker-compose); fi
compose() { "${compose_command[@]}" -f compose.yaml -p "$project" --profile cluster "$@"; }
log() { printf '[cluster-smoke +%3ss] %s\n' "$SECONDS" "$*" >&2; }
fail() { log "FAIL: $*"; compose logs --tail 100 >&2 || true; exit 1; }
trap 'compose down -v --remove-orphans >/dev/null 2>&1 || true' EXIT

command -v docker >/dev/null || fail "docker is not installed"
docker info >/dev/null 2>&1 || fail "the docker engine is not reachable ('docker info' fails)"
"${compose_command[@]}" version >/dev/null 2>&1 || fail "neither 'docker compose' nor 'docker-compose' is installed"
base=http://127.0.0.1:8081
# shellcheck source=docker/buildkit.sh
source ./buildkit.sh

log "building the images"
build_log=$(mktemp)
for image in "bouncer:latest Dockerfile .." "bouncer-postgres:latest postgres.Dockerfile ." "bouncer-balancer:latest nginx.Dockerfile ."; do
  read -r tag file context <<<"$image"
  docker_build --network host -f "$file" -t "$tag" "$context" >>"$build_log" 2>&1 \
    || { tail -n 40 "$build_log" >&2; fail "building $tag failed"; }
done
log "starting ${compose_command[*]} --profile cluster"
compose up -d --no-build >/dev/null || fail "compose up failed"
for _ in $(seq 120); do curl -fsS "$base/readyz" >/dev/null 2>&1 && break; sleep 1; done
curl -fsS "$base/readyz" >/dev/null || fail "not ready through nginx within 120 s"
admin=$(compose exec -T bouncer-1 bouncer token --user smoke-admin --role admin) || fail "cannot mint a token"
user=$(compose exec -T bouncer-1 bouncer token --user smoke-user) || fail "cannot mint a token"

send() {  # prints the status and the moderation action of one send through nginx
  curl -sS -o /tmp/$project.json -w '%{http_code}' -X POST -H "Authorization: Bearer $user" -H 'Content-Type: application/json' \
    --data "{\"text\":\"$1\"}" "$base/v1/channels/messaging:smoke/messages"
  printf ' %s\n' "$(grep -o '"action":"[a-z_]*"' /tmp/$project.json | head -1)"
}

log "a rule added through one instance bounces on all three"
status=$(curl -sS -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
  --data '{"kind":"word","pattern":"pineapple","action":"bounce"}' "$base/v1/rules")
[ "$status" = 201 ] || fail "adding the rule: $status"
sleep 1
for i in $(seq 9); do
  answer=$(send "pineapple $i")
  [[ "$answer" == *'"action":"bounce"' ]] || fail "send $i a second after the change: $answer"
done

log "PostgreSQL restarted: 503 while it is down, then sends again"
compose stop postgres >/dev/null
answer=$(send "while down")
[ "${answer%% *}" = 503 ] || fail "a send while the database is down: $answer"
compose start postgres >/dev/null
for _ in $(seq 60); do [ "$(send "after" | cut -d' ' -f1)" = 201 ] && break; sleep 1; done
[ "$(send "after" | cut -d' ' -f1)" = 201 ] || fail "sends did not recover within 60 s"
log "ok"
