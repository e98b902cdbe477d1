#!/bin/sh
# The generated client's test (Tests/openapi-client) generates a Python client from the binary's
# own /openapi.json with openapi-python-client, pinned from PyPI, in a venv of its own under
# .build; the client it writes needs only httpx and attrs, which the generator brings. Prints the
# venv's python.
exec "$(dirname "$0")/pinned-venv.sh" openapi-client-venv openapi-python-client==0.29.1
