#!/bin/sh
# The chat servers' tests (Tests/integrations) run a real Synapse with the synapse-http-antispam
# module pointed at Bouncer, and drive it with a real Matrix client: all from PyPI, pinned, in a
# venv of their own under .build. Prints the venv's python.
exec "$(dirname "$0")/pinned-venv.sh" integrations-venv matrix-synapse==1.163.2 synapse-http-antispam==0.5.1 matrix-nio==0.26.0
