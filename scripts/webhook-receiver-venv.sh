#!/bin/sh
# The test webhook receiver (Tests/webhooks/receiver.py) verifies signatures with the Standard
# Webhooks reference library from PyPI, installed into a venv of its own under .build.
set -eu
version=1.0.0
venv=.build/webhooks-venv
if "$venv/bin/python" -c "import standardwebhooks" >/dev/null 2>&1; then exit 0; fi
echo "== installing standardwebhooks $version into $venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "standardwebhooks==$version" \
  || { echo "webhook-receiver-venv: cannot install standardwebhooks $version from PyPI" >&2; exit 2; }
