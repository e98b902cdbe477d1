#!/bin/sh
# The chat servers' tests (Tests/integrations) run a real Synapse with the synapse-http-antispam
# module pointed at Bouncer, and drive it with a real Matrix client: all from PyPI, pinned, in a
# venv of their own under .build. Prints the venv's python.
set -eu
venv=.build/integrations-venv
pins="matrix-synapse==1.163.2 synapse-http-antispam==0.5.1 matrix-nio==0.26.0"
if ! "$venv/bin/python" - "$pins" >/dev/null 2>&1 <<'PY'
import sys
from importlib.metadata import version
for pin in sys.argv[1].split():
    name, wanted = pin.split("==")
    assert version(name) == wanted, pin
PY
then
  echo "== installing $pins into $venv" >&2
  python3 -m venv "$venv"
  # shellcheck disable=SC2086
  "$venv/bin/pip" install --quiet --disable-pip-version-check $pins >&2 \
    || { echo "integrations-venv: cannot install $pins from PyPI" >&2; exit 2; }
fi
echo "$PWD/$venv/bin/python"
