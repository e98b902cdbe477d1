#!/bin/sh
# The generated client's test (Tests/openapi-client) generates a Python client from the binary's
# own /openapi.json with openapi-python-client, pinned from PyPI, in a venv of its own under
# .build; the client it writes needs only httpx and attrs, which the generator brings. Prints the
# venv's python.
set -eu
venv=.build/openapi-client-venv
pins="openapi-python-client==0.29.1"
if ! "$venv/bin/python" - "$pins" >/dev/null 2>&1 <<'PY'
import sys
from importlib.metadata import version
for pin in sys.argv[1].split():
    name, wanted = pin.split("==")
    assert version(name) == wanted, pin
PY
then
  echo "== installing $pins into $venv" >&2
  python3 -m venv "$venv" || { echo "openapi-client-venv: python3 with venv is needed (apt-get install python3-venv)" >&2; exit 2; }
  # shellcheck disable=SC2086
  "$venv/bin/pip" install --quiet --disable-pip-version-check $pins >&2 \
    || { echo "openapi-client-venv: cannot install $pins from PyPI" >&2; exit 2; }
fi
echo "$PWD/$venv/bin/python"
