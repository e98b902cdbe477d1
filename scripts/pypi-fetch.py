#!/usr/bin/env python3
"""Fetches one file of a PyPI project, by the simple index (PEP 503) as pip reads it, and writes it
only when it has the pinned SHA-256.

    scripts/pypi-fetch.py PROJECT FILENAME SHA256 OUT
"""
import hashlib
import re
import sys
import urllib.parse
import urllib.request


def main():
    project, filename, sha256, out = sys.argv[1:]
    index = f"https://pypi.org/simple/{project}/"
    try:
        page = urllib.request.urlopen(index, timeout=60).read().decode()
    except OSError as error:
        sys.exit(f"pypi-fetch: cannot read {index}: {error}")
    links = [href.split("#")[0] for href in re.findall(r'href="([^"]+)"', page)]
    link = next((href for href in links if href.endswith("/" + filename)), None)
    if link is None:
        sys.exit(f"pypi-fetch: {project} has no file {filename}")
    data = urllib.request.urlopen(urllib.parse.urljoin(index, link), timeout=600).read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        sys.exit(f"pypi-fetch: {filename} has SHA-256 {digest}, not the pinned {sha256}")
    with open(out, "wb") as file:
        file.write(data)
    print(f"pypi-fetch: {filename} ({len(data)} bytes, SHA-256 checked)")


if __name__ == "__main__":
    main()
