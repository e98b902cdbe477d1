#!/usr/bin/env bash
# The bundled harm-score model's quality beside alt-profanity-check 1.9.1 (PyPI), on the same texts
# (scripts/bench/harm-quality.py says which): the held-out toxic texts, the same with their
# listed words disguised, and ordinary chat. Both run in a venv of their own (pinned).
#   scripts/harm-quality.sh [BOUNCER_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-.build/release/bouncer}
data=$(scripts/harm-data.sh)
python=$(scripts/pinned-venv.sh harm-quality-venv alt-profanity-check==1.9.1 scikit-learn==1.9.1)
"$python" scripts/bench/harm-quality.py --binary "$binary" --test "$data/test.csv"
