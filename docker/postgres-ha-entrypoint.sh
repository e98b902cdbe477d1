#!/bin/bash
# The `ha` profile's PostgreSQL, run by pg_auto_failover (the same setup as scripts/postgres-ha.sh,
# which make test runs on loopback):
#
#   postgres-ha-entrypoint.sh monitor   the monitor, its health checks tightened (a check a second,
#                                       a node unhealthy after 2 s) so that a dead primary is
#                                       replaced within seconds, not the defaults' 30
#   postgres-ha-entrypoint.sh node      a node (NODE_NAME: its compose service name). The first to
#                                       register becomes primary; the next, its synchronous standby,
#                                       copied from it. The primary creates user `bouncer`
#                                       (password POSTGRES_PASSWORD), replicated to the standby.
#
# The keeper (`pg_autoctl run`) runs in the foreground and starts, stops, promotes and demotes the
# server. pg_auto_failover's own connections (monitor, replication) are trusted inside the compose
# network, which publishes no port of these containers; Bouncer logs in with its password.
#
# HA_DATA_DIR, HA_PORT, HA_HOST and MONITOR_PORT (defaults: the image's volume, 5432, NODE_NAME,
# 5432) let the three run side by side on one host too.
set -euo pipefail
data=${HA_DATA_DIR:-/var/lib/postgresql/data}
pgdata=$data/pgdata
port=${HA_PORT:-5432}
export XDG_CONFIG_HOME=${XDG_CONFIG_HOME:-$data/config} XDG_DATA_HOME=${XDG_DATA_HOME:-$data/share}
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME"
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"

case ${1:?usage: postgres-ha-entrypoint.sh monitor|node} in
  monitor)
    if [ ! -s "$pgdata/PG_VERSION" ]; then
      pg_autoctl create monitor --pgdata "$pgdata" --pgport "$port" --hostname "${HA_HOST:-${NODE_NAME:-pg-monitor}}" --auth trust --no-ssl
      cat >>"$pgdata/postgresql.conf" <<'CONF'
pgautofailover.health_check_period = 1000
pgautofailover.health_check_timeout = 1000
pgautofailover.health_check_max_retries = 1
pgautofailover.health_check_retry_delay = 500
pgautofailover.node_considered_unhealthy_timeout = 2000
pgautofailover.primary_demote_timeout = 1000
CONF
      echo "host pg_auto_failover autoctl_node 0.0.0.0/0 trust" >>"$pgdata/pg_hba.conf"
    fi
    exec pg_autoctl run --pgdata "$pgdata"
    ;;
  node)
    : "${NODE_NAME:?set NODE_NAME to the host name of the node}"
    monitor="postgres://autoctl_node@${MONITOR_HOST:-pg-monitor}:${MONITOR_PORT:-5432}/pg_auto_failover?sslmode=disable"
    if [ ! -s "$pgdata/PG_VERSION" ]; then
      until psql "$monitor" -Atqc "SELECT 1" >/dev/null 2>&1; do sleep 1; done
      pg_autoctl create postgres --pgdata "$pgdata" --pgport "$port" --hostname "${HA_HOST:-$NODE_NAME}" --name "$NODE_NAME" \
        --dbname bouncer --monitor "$monitor" --auth trust --no-ssl --replication-quorum true
      # A standby being promoted waits at most a second for its WAL receiver to stop (5 s by default).
      pg_autoctl config set --pgdata "$pgdata" timeout.prepare_promotion_walreceiver 1
      printf '%s\n' "host bouncer bouncer 0.0.0.0/0 scram-sha-256" "host replication pgautofailover_replicator 0.0.0.0/0 trust" \
        "host bouncer pgautofailover_replicator 0.0.0.0/0 trust" "host all pgautofailover_monitor 0.0.0.0/0 trust" >>"$pgdata/pg_hba.conf"
    fi
    pg_autoctl run --pgdata "$pgdata" &
    keeper=$!
    trap 'kill -INT "$keeper" 2>/dev/null; wait "$keeper"' INT TERM
    # On the primary (never in recovery), make Bouncer's user once; the standby gets it by replication.
    for _ in $(seq 600); do
      if [ "$(psql -h 127.0.0.1 -p "$port" -d bouncer -Atqc 'SELECT NOT pg_is_in_recovery()' 2>/dev/null)" = t ]; then
        psql -h 127.0.0.1 -p "$port" -d bouncer -v ON_ERROR_STOP=1 -q -v password="$POSTGRES_PASSWORD" <<'SQL' || true
SELECT format('CREATE ROLE bouncer LOGIN PASSWORD %L', :'password')
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'bouncer') \gexec
ALTER DATABASE bouncer OWNER TO bouncer;
ALTER SCHEMA public OWNER TO bouncer;
SQL
        break
      fi
      psql -h 127.0.0.1 -p "$port" -d bouncer -Atqc 'SELECT 1' >/dev/null 2>&1 && break  # a standby: done
      sleep 1
    done
    wait "$keeper"
    ;;
  *)
    echo "usage: postgres-ha-entrypoint.sh monitor|node" >&2
    exit 2
    ;;
esac
