#!/usr/bin/env bash
# A PostgreSQL primary with a synchronous standby that takes over, on loopback, run by
# pg_auto_failover (Debian's pg-auto-failover-cli and postgresql-15-auto-failover): a monitor and
# two nodes, each node's keeper (`pg_autoctl run`) beside its server. The monitor's health checks
# are tightened from their defaults (a check every 5 s, a node unhealthy after 20 s) so that a
# primary that dies is replaced within a few seconds.
#
#   scripts/postgres-ha.sh start           prints the directory, then the multi-host URL
#                                          (target_session_attrs=read-write) of database `bouncer`
#   scripts/postgres-ha.sh primary DIR     prints the node now primary (node1 or node2)
#   scripts/postgres-ha.sh kill DIR NODE   kill -9 of NODE's keeper and postmaster: the node dies
#   scripts/postgres-ha.sh wait-primary DIR NODE SECONDS   waits until NODE is the primary
#   scripts/postgres-ha.sh stop DIR        stops everything and removes the directory
set -euo pipefail
cd "$(dirname "$0")/.."

as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- env "$@"; else env "$@"; fi; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
autoctl() {  # autoctl DIR ARGUMENT ...: pg_autoctl with its configuration kept inside DIR
  local dir=$1; shift
  as_owner XDG_CONFIG_HOME="$dir/config" XDG_DATA_HOME="$dir/share" PATH="/usr/lib/postgresql/15/bin:/usr/bin:/bin" pg_autoctl "$@"
}
state() {  # state DIR: "node1 primary" lines, from the monitor
  autoctl "$1" show state --pgdata "$1/monitor" --json 2>/dev/null |
    python3 -c 'import json, sys; [print(n["nodename"], n["current_group_state"], n["assigned_group_state"]) for n in json.load(sys.stdin)]' 2>/dev/null
}

# kill_node DIR NODE: kill -9 of the node's keeper and every process under it (its service that
# starts and stops the server would otherwise start it again), the server's postmaster among them.
kill_node() {
  local dir=$1 node=$2 keeper postmaster
  descendants() { local child; for child in $(pgrep -P "$1"); do descendants "$child"; echo "$child"; done; }
  postmaster=$([ -f "$dir/$node/postmaster.pid" ] && head -1 "$dir/$node/postmaster.pid" || true)
  for keeper in $(pgrep -f "pg_autoctl run --pgdata $dir/$node\$"); do
    kill -9 $(descendants "$keeper") "$keeper" 2>/dev/null || true
  done
  [ -n "$postmaster" ] && kill -9 "$postmaster" 2>/dev/null || true
}

case ${1:-} in
  start)
    scripts/ensure-packages.sh postgresql pg-auto-failover-cli postgresql-15-auto-failover >&2 ||
      { echo "postgres-ha: pg_auto_failover is not installed and cannot be" >&2; exit 1; }
    dir=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-postgres-ha.XXXXXX")
    # A start that fails says why, and leaves nothing running behind it.
    trap 'status=$?; if [ $status -ne 0 ]; then
            echo "postgres-ha: start failed (exit $status); the state and the logs end:" >&2
            state "$dir" >&2 || true
            tail -n 5 "$dir"/*.log >&2 2>/dev/null || true
            for node in node1 node2 monitor; do kill_node "$dir" "$node"; done
            rm -rf "$dir"
          fi' EXIT
    chmod 755 "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
    monitor_port=$(free_port) port1=$(free_port) port2=$(free_port)
    echo "$monitor_port $port1 $port2" >"$dir/ports"
    autoctl "$dir" create monitor --pgdata "$dir/monitor" --pgport "$monitor_port" --hostname 127.0.0.1 --auth trust --no-ssl \
      >"$dir/monitor.log" 2>&1 || { tail -20 "$dir/monitor.log" >&2; exit 1; }
    # The monitor's health checks, tightened: a check a second, one retry, unhealthy after 2 s.
    cat >>"$dir/monitor/postgresql.conf" <<'CONF'
pgautofailover.health_check_period = 1000
pgautofailover.health_check_timeout = 1000
pgautofailover.health_check_max_retries = 1
pgautofailover.health_check_retry_delay = 500
pgautofailover.node_considered_unhealthy_timeout = 2000
pgautofailover.primary_demote_timeout = 1000
CONF
    (autoctl "$dir" run --pgdata "$dir/monitor" >>"$dir/monitor.log" 2>&1 &)
    monitor="postgres://autoctl_node@127.0.0.1:$monitor_port/pg_auto_failover?sslmode=disable"
    for _ in $(seq 100); do psql "$monitor" -Atqc "SELECT 1" >/dev/null 2>&1 && break; sleep 0.2; done
    for node in 1 2; do
      port=$([ $node = 1 ] && echo "$port1" || echo "$port2")
      autoctl "$dir" create postgres --pgdata "$dir/node$node" --pgport "$port" --hostname 127.0.0.1 --listen 127.0.0.1 --name "node$node" \
        --dbname bouncer --monitor "$monitor" --auth trust --no-ssl --replication-quorum true >"$dir/node$node.log" 2>&1 ||
        { tail -20 "$dir/node$node.log" >&2; exit 1; }
      # A standby being promoted waits at most a second for its WAL receiver to stop (5 s by default).
      autoctl "$dir" config set --pgdata "$dir/node$node" timeout.prepare_promotion_walreceiver 1 >>"$dir/node$node.log" 2>&1
      (autoctl "$dir" run --pgdata "$dir/node$node" >>"$dir/node$node.log" 2>&1 &)
      # The first node is primary before the second is made, which then copies it.
      for _ in $(seq 300); do
        state "$dir" | grep -q "^node$node $([ $node = 1 ] && echo 'single single' || echo 'secondary secondary')\$" && break
        sleep 0.2
      done
    done
    # Judged by the loop's own answer: a second look at the monitor can fail on its own (a busy
    # run once saw the primary here and then no answer), which is not a cluster without one.
    primary=false
    for _ in $(seq 150); do
      if state "$dir" | grep -q "^node1 primary primary"; then primary=true; break; fi
      sleep 0.2
    done
    $primary || { state "$dir" >&2; echo "postgres-ha: no primary with a secondary" >&2; exit 1; }
    psql "postgres://postgres@127.0.0.1:$port1/bouncer" -qc "CREATE ROLE bouncer LOGIN SUPERUSER" >/dev/null ||
      { echo "postgres-ha: cannot create the role bouncer on node1" >&2; exit 1; }
    trap - EXIT
    echo "$dir"
    echo "postgres://bouncer@127.0.0.1:$port1,127.0.0.1:$port2/bouncer?target_session_attrs=read-write&connect_timeout=2"
    ;;
  primary)
    state "${2:?usage: $0 primary DIR}" | awk '($2 == "primary" || $2 == "wait_primary") && $3 == $2 {print $1}'
    ;;
  kill)
    dir=${2:?usage: $0 kill DIR NODE} node=${3:?usage: $0 kill DIR NODE}
    kill_node "$dir" "$node"
    ;;
  wait-primary)
    dir=${2:?} node=${3:?} seconds=${4:-60}
    for _ in $(seq $((seconds * 5))); do
      state "$dir" | grep -q "^$node primary primary" && exit 0
      state "$dir" | grep -q "^$node wait_primary wait_primary" && exit 0
      sleep 0.2
    done
    state "$dir" >&2
    exit 1
    ;;
  stop)
    dir=${2:?usage: $0 stop DIR}
    for node in node1 node2 monitor; do kill_node "$dir" "$node"; done
    sleep 0.5
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start | primary DIR | kill DIR NODE | wait-primary DIR NODE SECONDS | stop DIR" >&2
    exit 2
    ;;
esac
