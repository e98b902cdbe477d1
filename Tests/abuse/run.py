#!/usr/bin/env python3
"""Bouncer under abuse: crash, shutdown, slow clients and trickled bodies, idle clients, overload,
hostile input.

    python3 Tests/abuse/run.py [--profile short|soak] [--binary PATH] [--only NAME[,NAME]]

`short` is what `make test` runs (CI); `soak` (`make soak`) runs each test longer and bigger.
Each test prints what it found; any failure makes the exit status 1."""
import argparse
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import durability  # noqa: E402
import hostile  # noqa: E402
import load  # noqa: E402
from harness import Service, raise_open_file_limit  # noqa: E402

# The normal client beside slow ones sends durable messages: each waits for the disk. In the short
# profile (make test, on a debug build, on whatever disk CI has) its p99 must stay under a quarter
# of the 2 s header timeout, which a starved event loop would blow through; the soak profile (the
# release build) holds it to 50 ms.
PROFILES = {
    "short": {
        "crash": lambda binary: durability.crash_durability(binary, rounds=10),
        "shutdown": lambda binary: durability.graceful_shutdown(binary),
        "slow-clients": lambda binary: load.slow_clients(binary, connections=500, header_timeout=2, p99_limit_ms=500),
        "trickled-bodies": lambda binary: load.trickled_bodies(binary, connections=50, p99_limit_ms=500),
        "idle-connections": lambda binary: load.idle_connections(binary, connections=2000),
        "connection-cap": lambda binary: load.connection_cap(binary),
        "send-flood": lambda binary: load.send_flood(binary),
        "hostile-input": lambda binary: hostile.run_corpus(binary),
    },
    "soak": {
        "crash": lambda binary: durability.crash_durability(binary, rounds=50),
        "shutdown": lambda binary: durability.graceful_shutdown(binary, load_seconds=10),
        "slow-clients": lambda binary: load.slow_clients(binary, connections=500, header_timeout=10),
        "trickled-bodies": lambda binary: load.trickled_bodies(binary, connections=500),
        "idle-connections": lambda binary: load.idle_connections(binary, connections=10000, hold_seconds=30),
        "connection-cap": lambda binary: load.connection_cap(binary, rounds=5),
        "send-flood": lambda binary: load.send_flood(binary, seconds=10),
        "hostile-input": lambda binary: hostile.run_corpus(binary, repeat=5),
    },
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", choices=sorted(PROFILES), default="short")
    parser.add_argument("--binary", default=None, help="the bouncer binary (default: release build, else debug)")
    parser.add_argument("--only", default="", help="comma-separated test names")
    options = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    binary = options.binary
    if binary is None:
        for candidate in (".build/release/bouncer", ".build/debug/bouncer"):
            if os.access(os.path.join(root, candidate), os.X_OK):
                binary = os.path.join(root, candidate)
                break
    if binary is None or not os.access(binary, os.X_OK):
        print("abuse tests: build bouncer first (swift build)", file=sys.stderr)
        return 2
    raise_open_file_limit()
    tests = PROFILES[options.profile]
    selected = [name for name in tests if not options.only or name in options.only.split(",")]
    failed = []
    for name in selected:
        started = time.monotonic()
        print(f"== {name} ({options.profile})", flush=True)
        try:
            finding = tests[name](binary)
            print(f"   ok in {time.monotonic() - started:.1f}s: {finding}", flush=True)
        except Exception as error:  # a failed check or anything unforeseen: report and go on
            failed.append(name)
            print(f"   FAILED in {time.monotonic() - started:.1f}s: {error}", flush=True)
            if not isinstance(error, AssertionError):
                traceback.print_exc()
        finally:
            Service.stop_all()
    print(f"abuse tests: {len(selected) - len(failed)} passed, {len(failed)} failed {failed if failed else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
