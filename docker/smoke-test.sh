#!/usr/bin/env bash
# smoke-test.sh - build the Bouncer image and prove it runs as deployed.
#
#   bash docker/smoke-test.sh            (from anywhere; the build context is the repo root)
#
# 1. builds docker/Dockerfile (BuildKit, --network host);
# 2. runs it read-only (--read-only, no tmpfs) as its non-root user with a fresh
#    named volume at /data, reachable on a free 127.0.0.1 port;
# 3. waits (bounded) for GET /readyz = 200, checks GET /healthz and the image's
#    HEALTHCHECK;
# 4. `docker stop` must end it with exit code 0 within 15 s (SIGTERM handled);
# 5. a new container on the same volume must be ready again, with the store
#    (and its migration history) as the first run left it;
# 6. removes its containers and volume (trap), keeps the image.
#
# Environment (all optional):
#   IMAGE=bouncer:smoke   image to build and test
#   SKIP_BUILD=1          test $IMAGE as it is, without building it
#   NETWORK=auto          publish: -p 127.0.0.1:PORT:8080 on the default bridge;
#                         host: --network host, the service bound to 127.0.0.1:PORT;
#                         auto: publish if the engine has a bridge network, else host
#   READY_TIMEOUT=60      seconds to wait for /readyz
#   BUILD_LOG=FILE        keep the full `docker build` output there (default: a
#                         temp file, shown only on failure)
# Only 127.0.0.1 is ever contacted.
set -euo pipefail

IMAGE=${IMAGE:-bouncer:smoke}
SKIP_BUILD=${SKIP_BUILD:-0}
NETWORK=${NETWORK:-auto}
READY_TIMEOUT=${READY_TIMEOUT:-60}
STOP_TIMEOUT=15                      # docker stop -t, and the limit on how long it may take
SERVICE_UID=10001

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUN_ID=bouncer-smoke-$$
VOLUME=$RUN_ID-data
CONTAINER=""                         # the container currently under test (for logs)
CONTAINERS=()                        # every container this run created (for cleanup)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-smoke.XXXXXX")
BUILD_LOG=${BUILD_LOG:-$WORK/build.log}
T0=$SECONDS

log()  { printf '[smoke +%3ss] %s\n' "$((SECONDS - T0))" "$*" >&2; }
fail() {
  printf '\n[smoke] FAIL: %s\n' "$*" >&2
  if [ -n "$CONTAINER" ] && docker container inspect "$CONTAINER" >/dev/null 2>&1; then
    printf '[smoke] state of %s: %s\n' "$CONTAINER" \
      "$(docker inspect -f 'status={{.State.Status}} exit={{.State.ExitCode}} health={{if .State.Health}}{{.State.Health.Status}}{{else}}-{{end}}' "$CONTAINER")" >&2
    printf '[smoke] ---- docker logs %s ----\n' "$CONTAINER" >&2
    docker logs --tail 200 "$CONTAINER" >&2 2>&1 || true
    printf '[smoke] ---- end of logs ----\n' >&2
  fi
  exit 1
}

cleanup() {
  local rc=$? c
  for c in "${CONTAINERS[@]}"; do docker rm -f "$c" >/dev/null 2>&1 || true; done
  docker volume rm -f "$VOLUME" >/dev/null 2>&1 || true
  rm -rf "$WORK"
  [ "$rc" = 0 ] || log "cleaned up after failure (exit $rc)"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v docker >/dev/null || fail "docker is not installed"
command -v curl >/dev/null || fail "curl is needed on the host"
docker info >/dev/null 2>&1 || fail "the docker engine is not reachable ('docker info' fails)"

# ---------------------------------------------------------------- build
# shellcheck source=docker/buildkit.sh
source "$REPO_ROOT/docker/buildkit.sh"

if [ "$SKIP_BUILD" = 1 ]; then
  docker image inspect "$IMAGE" >/dev/null 2>&1 || fail "SKIP_BUILD=1 but there is no image $IMAGE"
  log "using existing image $IMAGE"
else
  log "building $IMAGE from $REPO_ROOT (docker/Dockerfile)"
  t=$SECONDS
  docker_build --network host --progress plain -f "$REPO_ROOT/docker/Dockerfile" -t "$IMAGE" "$REPO_ROOT" \
    >"$BUILD_LOG" 2>&1 || { tail -n 60 "$BUILD_LOG" >&2; fail "docker build failed (last lines above; full log $BUILD_LOG)"; }
  swift_line=$(grep -o 'Build of product .* complete! ([0-9.]*s)' "$BUILD_LOG" | tail -n1 || true)
  log "built $IMAGE in $((SECONDS - t))s (${swift_line:-swift build step cached})"
fi
log "image: $(docker image ls --format '{{.Repository}}:{{.Tag}} {{.ID}} {{.Size}}' "$IMAGE" | head -n1)"

# ---------------------------------------------------------------- helpers
if [ "$NETWORK" = auto ]; then
  if docker network inspect bridge >/dev/null 2>&1; then NETWORK=publish; else NETWORK=host; fi
fi
case $NETWORK in publish|host) ;; *) fail "NETWORK must be auto, publish or host, not '$NETWORK'" ;; esac

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
  local p _
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 40000))
    port_in_use "$p" || { echo "$p"; return; }
  done
  fail "found no free port on 127.0.0.1"
}

# http PATH -> prints "STATUS BODY"; never fails (STATUS 000 when nothing answers).
http() {
  local status
  status=$(curl -sS -o "$WORK/body" -w '%{http_code}' --max-time 3 "http://127.0.0.1:$PORT$1" 2>/dev/null) || true
  printf '%s %s' "${status:-000}" "$(cat "$WORK/body" 2>/dev/null || true)"
  rm -f "$WORK/body"
}

expect() {   # expect PATH STATUS BODY
  local got
  got=$(http "$1")
  [ "$got" = "$2 $3" ] || fail "GET $1: expected '$2 $3', got '$got'"
  log "GET $1 -> $got"
}

start_container() {   # start_container NAME
  PORT=$(free_port)
  local net=()
  if [ "$NETWORK" = publish ]; then
    net=(-p "127.0.0.1:$PORT:8080")
  else
    net=(--network host -e BOUNCER_HOST=127.0.0.1 -e "BOUNCER_PORT=$PORT")
  fi
  CONTAINER=$1
  CONTAINERS+=("$1")
  # --read-only and no tmpfs: the named volume at /data must be the only writable place.
  # --health-interval only makes the image's own HEALTHCHECK command run sooner.
  docker run -d --pull never --name "$1" --read-only -v "$VOLUME:/data" \
    --health-interval 2s --health-start-period 0s "${net[@]}" "$IMAGE" >/dev/null ||
    fail "docker run $IMAGE failed"
  log "started $1 ($NETWORK network, http://127.0.0.1:$PORT)"
}

wait_ready() {
  local deadline=$((SECONDS + READY_TIMEOUT)) got
  while :; do
    got=$(http /readyz)
    [ "${got%% *}" = 200 ] && break
    [ "$(docker inspect -f '{{.State.Running}}' "$CONTAINER")" = true ] ||
      fail "$CONTAINER exited before it was ready (last /readyz: '$got')"
    [ "$SECONDS" -lt "$deadline" ] || fail "/readyz not 200 within ${READY_TIMEOUT}s (last: '$got')"
    sleep 0.5
  done
  [ "$got" = '200 {"status":"ready"}' ] || fail "GET /readyz: unexpected answer '$got'"
  log "GET /readyz -> $got (after $((SECONDS + READY_TIMEOUT - deadline))s)"
}

wait_healthy() {
  local deadline=$((SECONDS + 30)) health
  while :; do
    health=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$CONTAINER")
    case $health in
      healthy) break ;;
      none) fail "the image has no HEALTHCHECK" ;;
      unhealthy) fail "HEALTHCHECK reports unhealthy: $(docker inspect -f '{{range .State.Health.Log}}{{.ExitCode}}:{{.Output}} {{end}}' "$CONTAINER")" ;;
    esac
    [ "$SECONDS" -lt "$deadline" ] || fail "HEALTHCHECK not healthy within 30s (status '$health')"
    sleep 1
  done
  log "HEALTHCHECK -> healthy"
}

stop_container() {
  local t0 ms code
  t0=$(date +%s%N)
  docker stop -t "$STOP_TIMEOUT" "$CONTAINER" >/dev/null || fail "docker stop $CONTAINER failed"
  ms=$((($(date +%s%N) - t0) / 1000000))
  code=$(docker inspect -f '{{.State.ExitCode}}' "$CONTAINER")
  [ "$code" = 0 ] || fail "$CONTAINER exited with code $code on SIGTERM (expected 0; 137 means it was killed)"
  [ "$ms" -lt $((STOP_TIMEOUT * 1000)) ] || fail "docker stop took ${ms}ms (limit ${STOP_TIMEOUT}s)"
  log "docker stop -> exit code 0 in ${ms}ms"
}

# The migration history, read from the volume by a one-off container (the service is stopped).
migration_status() {
  docker run --rm --pull never --read-only --network none -v "$VOLUME:/data" "$IMAGE" migrate --status
}

# ---------------------------------------------------------------- message traffic
# Messages: a rule that bounces, one message it bounces and one that passes; after the restart
# both are read back from the same volume.
api() {   # api METHOD PATH [JSON] -> prints "STATUS BODY"
  local status
  status=$(curl -sS -o "$WORK/body" -w '%{http_code}' --max-time 5 -X "$1" -H "Authorization: Bearer $TOKEN" \
    -H 'Content-Type: application/json' ${3:+--data-binary "$3"} "http://127.0.0.1:$PORT$2" 2>/dev/null) || true
  printf '%s %s' "${status:-000}" "$(cat "$WORK/body" 2>/dev/null || true)"
  rm -f "$WORK/body"
}

expect_api() {   # expect_api METHOD PATH JSON STATUS GREP-PATTERN...
  local method=$1 path=$2 body=$3 status=$4 got pattern
  shift 4
  got=$(api "$method" "$path" "$body")
  [ "${got%% *}" = "$status" ] || fail "$method $path: expected $status, got '$got'"
  for pattern in "$@"; do
    grep -q -- "$pattern" <<<"$got" || fail "$method $path: no '$pattern' in '$got'"
  done
  log "$method $path -> $status"
}

send_messages() {
  TOKEN=$(docker exec "$CONTAINER" bouncer token --user smoke-admin --role admin) || fail "bouncer token failed in the container"
  expect_api POST /v1/rules '{"kind":"word","pattern":"smokeword","action":"bounce"}' 201 '"action":"bounce"'
  expect_api POST /v1/channels/messaging:smoke/messages '{"id":"smoke-bounced","text":"this has smokeword in it"}' 201 \
    '"state":"bounced"' '"alert":{' '"title":"Are you sure?"'
  expect_api POST /v1/channels/messaging:smoke/messages '{"id":"smoke-delivered","text":"a friendly hello"}' 201 \
    '"state":"delivered"'
}

check_messages_survived() {
  TOKEN=$(docker exec "$CONTAINER" bouncer token --user smoke-admin --role admin) || fail "bouncer token failed in the container"
  expect_api GET /v1/messages/smoke-bounced '' 200 '"state":"bounced"' '"text":"this has smokeword in it"'
  expect_api GET /v1/messages/smoke-delivered '' 200 '"state":"delivered"' '"text":"a friendly hello"'
  expect_api GET /v1/channels/messaging:smoke/messages '' 200 '"id":"smoke-bounced"' '"id":"smoke-delivered"'
}
# <<< MESSAGES

# ---------------------------------------------------------------- run
docker volume create "$VOLUME" >/dev/null
log "volume $VOLUME"

start_container "$RUN_ID-1"
wait_ready
expect /healthz 200 '{"status":"ok"}'
uid=$(docker exec "$CONTAINER" id -u)
[ "$uid" = "$SERVICE_UID" ] || fail "the service runs as uid $uid, expected $SERVICE_UID"
[ "$(docker inspect -f '{{.HostConfig.ReadonlyRootfs}}' "$CONTAINER")" = true ] || fail "root filesystem is not read-only"
docker exec "$CONTAINER" test -s /data/bouncer.sqlite3 || fail "no store at /data/bouncer.sqlite3"
log "runs as uid $uid on a read-only root; store at /data/bouncer.sqlite3"
wait_healthy
send_messages
stop_container

migration_status >"$WORK/migrations-1" || fail "bouncer migrate --status failed after the first run"
grep -q ' applied' "$WORK/migrations-1" || fail "no applied migration in the store: $(cat "$WORK/migrations-1")"

start_container "$RUN_ID-2"
wait_ready
expect /healthz 200 '{"status":"ok"}'
check_messages_survived
stop_container

migration_status >"$WORK/migrations-2" || fail "bouncer migrate --status failed after the second run"
diff -u "$WORK/migrations-1" "$WORK/migrations-2" >&2 ||
  fail "the store changed across the restart (migration history above)"
log "store survived the restart: $(tr '\n' ';' <"$WORK/migrations-2")"

printf 'PASS: %s built, served /readyz and /healthz read-only as uid %s, stopped with exit 0 on SIGTERM, and restarted on the same volume with its store intact (%ss)\n' \
  "$IMAGE" "$SERVICE_UID" "$((SECONDS - T0))"
