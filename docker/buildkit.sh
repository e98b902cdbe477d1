# Sourced by the smoke tests: `docker_build ARGS...` runs `docker build ARGS...` with BuildKit,
# which docker/Dockerfile needs. Expects `log` and `fail` functions.
# The Dockerfile needs BuildKit (RUN --mount, docker/Dockerfile.dockerignore).
# A client with the buildx plugin uses it for `docker build`; a pre-23 client
# has BuildKit built in (DOCKER_BUILDKIT=1); a 23+ client without buildx only
# has the legacy builder, so look for another docker client on PATH.
docker_build() {
  if docker buildx version >/dev/null 2>&1; then
    DOCKER_BUILDKIT=1 docker build "$@"
    return
  fi
  local cli version
  while read -r cli; do
    version=$("$cli" version --format '{{.Client.Version}}' 2>/dev/null) || continue
    if [[ $version =~ ^([0-9]+)\. ]] && [ "${BASH_REMATCH[1]}" -lt 23 ]; then
      log "no buildx plugin; building with $cli ($version, BuildKit built in)"
      DOCKER_BUILDKIT=1 "$cli" build "$@"
      return
    fi
  done < <(type -ap docker | xargs -r -n1 readlink -f | awk '!seen[$0]++')
  fail "no BuildKit-capable docker client: install the docker buildx plugin"
}

