#!/bin/sh
# pinned-venv.sh NAME PIN...: a venv of its own under .build/NAME holding exactly the PINS
# (name==version, from PyPI), made or remade when one is missing or at another version. Prints
# the venv's python. The tests that run outside software (Synapse, openapi-python-client, the
# Standard Webhooks library) each keep theirs through a script of two lines.
set -eu
name=$1
shift
venv=.build/$name
pins="$*"
if ! "$venv/bin/python" - "$pins" >/dev/null 2>&1 <<'PY'
import sys
from importlib.metadata import version
for pin in sys.argv[1].split():
    package, wanted = pin.split("==")
    assert version(package) == wanted, pin
PY
then
  echo "== installing $pins into $venv" >&2
  python3 -m venv "$venv" || { echo "$name: python3 with venv is needed (apt-get install python3-venv)" >&2; exit 2; }
  # shellcheck disable=SC2086
  "$venv/bin/pip" install --quiet --disable-pip-version-check $pins >&2 \
    || { echo "$name: cannot install $pins from PyPI" >&2; exit 2; }
fi
echo "$PWD/$venv/bin/python"
