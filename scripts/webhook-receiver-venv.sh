#!/bin/sh
# The test webhook receiver (Tests/webhooks/receiver.py) verifies signatures with the Standard
# Webhooks reference library from PyPI, installed into a venv of its own under .build.
exec "$(dirname "$0")/pinned-venv.sh" webhooks-venv standardwebhooks==1.0.0 >/dev/null
