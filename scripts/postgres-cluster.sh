#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: created in a new temporary directory, on a free
# loopback port, by Debian's server binaries. PostgreSQL refuses to run as root, so as root the
# cluster belongs to, and runs as, the `postgres` user.
#
#   scripts/postgres-cluster.sh start     prints the cluster's directory, then its URL
#   scripts/postgres-cluster.sh stop DIR  stops it and removes the directory
#   scripts/postgres-cluster.sh down DIR  stops the server, keeping its data (a database outage)
#   scripts/postgres-cluster.sh up DIR    starts it again, on the same port
#
# It fails, saying why, when PostgreSQL is not installed and cannot be.
set -euo pipefail
cd "$(dirname "$0")/.."

# Descriptors inherited from whoever runs this are closed first (bash's own script descriptor,
# 255, aside), so the server started here does not hold them open once the script is done: a
# parent that learns of the script's end by such a descriptor closing (Foundation's Process does)
# would otherwise never learn of it.
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  if [ "$fd" -gt 2 ] && [ "$fd" -ne 255 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
done

server_bin() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$dir" ] && [ -x "$dir/initdb" ] && echo "$dir"
}

as_owner() {  # runs a command as the cluster's owner
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case ${1:-} in
  start)
    scripts/ensure-packages.sh postgresql >&2 || { echo "postgres-cluster: PostgreSQL is not installed and cannot be" >&2; exit 1; }
    bin=$(server_bin) || { echo "postgres-cluster: no PostgreSQL server binaries in /usr/lib/postgresql/*/bin" >&2; exit 1; }
    dir=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-postgres.XXXXXX")
    chmod 755 "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    as_owner "$bin/initdb" --pgdata "$dir/data" --username bouncer --auth trust --encoding UTF8 --locale C.UTF-8 >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; echo "postgres-cluster: initdb failed" >&2; exit 1; }
    # Durable as in production (fsync stays on): the store's behaviour under commit is what is tested.
    # POSTGRES_OPTIONS adds server settings (`-c name=value ...`).
    echo "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=1000 ${POSTGRES_OPTIONS:-}" >"$dir/options"
    as_owner "$bin/pg_ctl" --pgdata "$dir/data" --log "$dir/server.log" --wait --timeout 60 -o "$(cat "$dir/options")" start >/dev/null ||
      { tail -20 "$dir/server.log" >&2; echo "postgres-cluster: the server did not start" >&2; exit 1; }
    echo "$dir"
    echo "postgres://bouncer@127.0.0.1:$port/postgres"
    ;;
  stop)
    dir=${2:?usage: $0 stop DIR}
    bin=$(server_bin) || exit 0
    [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" --pgdata "$dir/data" --mode fast --wait stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  down)
    dir=${2:?usage: $0 down DIR}
    bin=$(server_bin)
    as_owner "$bin/pg_ctl" --pgdata "$dir/data" --mode fast --wait stop >/dev/null
    ;;
  up)
    dir=${2:?usage: $0 up DIR}
    bin=$(server_bin)
    as_owner "$bin/pg_ctl" --pgdata "$dir/data" --log "$dir/server.log" --wait --timeout 60 -o "$(cat "$dir/options")" start >/dev/null
    ;;
  *)
    echo "usage: $0 start | stop DIR | down DIR | up DIR" >&2
    exit 2
    ;;
esac
