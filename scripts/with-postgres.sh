#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL cluster beside it (scripts/postgres-cluster.sh): its
# URL is in BOUNCER_TEST_POSTGRES_URL while the command runs, and the cluster is stopped and
# removed afterwards, however the command ends. Inside another run (the variable is set already)
# the command shares that run's cluster.
#   scripts/with-postgres.sh COMMAND [ARGUMENT ...]
set -euo pipefail
[ -n "${BOUNCER_TEST_POSTGRES_URL:-}" ] && exec "$@"
cd "$(dirname "$0")/.."
started=$(scripts/postgres-cluster.sh start)
dir=$(sed -n 1p <<<"$started")
trap 'scripts/postgres-cluster.sh stop "$dir"' EXIT
export BOUNCER_TEST_POSTGRES_URL=$(sed -n 2p <<<"$started")
echo "== PostgreSQL for the tests at $BOUNCER_TEST_POSTGRES_URL" >&2
"$@"
