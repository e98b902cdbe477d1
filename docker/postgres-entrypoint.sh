#!/bin/bash
# Creates the cluster on first start (user `bouncer`, password from POSTGRES_PASSWORD, database
# `bouncer`), then runs the server in the foreground, reachable from the compose network only.
set -euo pipefail
data=/var/lib/postgresql/data
bin=/usr/lib/postgresql/15/bin
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
if [ ! -s "$data/PG_VERSION" ]; then
  password_file=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$password_file"
  "$bin/initdb" --pgdata "$data" --username bouncer --pwfile "$password_file" --auth-host scram-sha-256 --auth-local trust \
    --encoding UTF8 --locale C.UTF-8
  rm -f "$password_file"
  echo "host all all 0.0.0.0/0 scram-sha-256" >>"$data/pg_hba.conf"
  "$bin/pg_ctl" --pgdata "$data" --wait start -o "-c listen_addresses=''"
  "$bin/psql" --username bouncer --dbname postgres --command "CREATE DATABASE bouncer"
  "$bin/pg_ctl" --pgdata "$data" --wait stop
fi
exec "$bin/postgres" -D "$data" -c listen_addresses='*' -c max_connections=200
