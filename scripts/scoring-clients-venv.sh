#!/bin/sh
# The scoring APIs' test (Tests/scoring-apis) drives Bouncer's Perspective and OpenAI endpoints
# with the clients their users already run, pinned from PyPI: Google's API client library (built
# from Bouncer's own discovery document), the `perspective` package, and OpenAI's SDK. Prints the
# venv's python.
exec "$(dirname "$0")/pinned-venv.sh" scoring-clients-venv google-api-python-client==2.202.0 perspective==1.0.3 openai==3.63.0
