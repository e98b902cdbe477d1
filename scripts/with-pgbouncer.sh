#!/usr/bin/env bash
# Runs a command with PgBouncer in transaction pooling mode in front of the tests' PostgreSQL
# cluster (BOUNCER_TEST_POSTGRES_URL, from scripts/with-postgres.sh): every database of the
# cluster is reachable through it under its own name, at the URL in
# BOUNCER_TEST_POSTGRES_POOLER_URL while the command runs. PgBouncer is stopped afterwards,
# however the command ends.
#   scripts/with-pgbouncer.sh COMMAND [ARGUMENT ...]
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BOUNCER_TEST_POSTGRES_URL:?run inside scripts/with-postgres.sh}"
scripts/ensure-packages.sh pgbouncer >&2 || { echo "with-pgbouncer: PgBouncer is not installed and cannot be" >&2; exit 1; }
# Debian's package starts a PgBouncer of its own on 6432; this one is the tests' alone.
as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
server=${BOUNCER_TEST_POSTGRES_URL#*@}   # 127.0.0.1:PORT/postgres
host=${server%%:*} rest=${server#*:} server_port=${rest%%/*}
user=${BOUNCER_TEST_POSTGRES_URL#postgres://} user=${user%%@*}
dir=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-pgbouncer.XXXXXX")
chmod 755 "$dir"
[ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
# `*`: any database name goes to the cluster's database of that name, logged in as the cluster's
# user (the cluster trusts loopback). Pools are small, as in production: more clients than
# server connections, so transactions of different clients share server connections.
cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$host port=$server_port user=$user

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = any
pool_mode = transaction
default_pool_size = 8
max_client_conn = 2000
max_db_connections = 40
server_reset_query =
ignore_startup_parameters = extra_float_digits,options
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
chown -R postgres: "$dir" 2>/dev/null || true
as_owner pgbouncer --daemon "$dir/pgbouncer.ini" || { cat "$dir/pgbouncer.log" >&2 2>/dev/null; echo "with-pgbouncer: PgBouncer did not start" >&2; exit 1; }
stop() {
  [ -f "$dir/pgbouncer.pid" ] && kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
  rm -rf "$dir"
}
trap stop EXIT
for _ in $(seq 50); do
  psql "postgres://$user@127.0.0.1:$port/postgres" -Atqc "SELECT 1" >/dev/null 2>&1 && break
  sleep 0.1
done
export BOUNCER_TEST_POSTGRES_POOLER_URL="postgres://$user@127.0.0.1:$port/postgres"
echo "== PgBouncer (transaction pooling) for the tests at $BOUNCER_TEST_POSTGRES_POOLER_URL" >&2
"$@"
