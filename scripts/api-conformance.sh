#!/usr/bin/env bash
# Runs schemathesis (PyPI) against a freshly started Bouncer: every operation of /openapi.json,
# with an admin token, under scripts/api/schemathesis.toml. Exits non-zero on any failure.
#   BOUNCER_BINARY   the binary to run (default .build/release/bouncer, else .build/debug/bouncer)
#   API_MAX_EXAMPLES examples per operation and phase (default 30)
#   API_SEED         schemathesis' seed (default fixed, so a run can be repeated)
set -euo pipefail
cd "$(dirname "$0")/.."
version=4.32.5
binary=${BOUNCER_BINARY:-}
if [ -z "$binary" ]; then
  for candidate in .build/release/bouncer .build/debug/bouncer; do
    [ -x "$candidate" ] && binary=$candidate && break
  done
fi
[ -n "$binary" ] && [ -x "$binary" ] || { echo "api-conformance: build bouncer first (swift build)" >&2; exit 2; }

# schemathesis in a virtual environment of its own, pinned.
venv=.build/schemathesis-$version
if ! "$venv/bin/schemathesis" --version >/dev/null 2>&1; then
  echo "== installing schemathesis $version into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv" || { echo "api-conformance: python3 with venv is needed (apt-get install python3-venv)" >&2; exit 2; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version" \
    || { echo "api-conformance: cannot install schemathesis $version from PyPI" >&2; exit 2; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bouncer-api.XXXXXX")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# No per-user send limit: every generated send comes from the token's one user.
"$binary" serve --port "$port" --data-dir "$work/data" --log-level warn --send-rate-per-user 0 >"$work/log.jsonl" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
BOUNCER_TOKEN=$("$binary" token --user api-conformance --role admin --data-dir "$work/data")
export BOUNCER_TOKEN

echo "== schemathesis $version against http://127.0.0.1:$port/openapi.json"
status=0
root=$PWD
# Run from the scratch directory: schemathesis keeps its cache (.schemathesis) where it runs.
(cd "$work" && "$root/$venv/bin/schemathesis" --config-file "$root/scripts/api/schemathesis.toml" run "http://127.0.0.1:$port/openapi.json" \
  --max-examples "${API_MAX_EXAMPLES:-30}" --seed "${API_SEED:-20261129}" --no-color) || status=$?
if ! kill -0 "$server" 2>/dev/null; then
  echo "api-conformance: the service died during the run; its log:" >&2
  tail -20 "$work/log.jsonl" >&2
  exit 1
fi
if grep -q '"level":"error"' "$work/log.jsonl"; then
  echo "api-conformance: the service logged errors:" >&2
  grep '"level":"error"' "$work/log.jsonl" | head -20 >&2
  status=1
fi
exit $status
