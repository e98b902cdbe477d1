#!/usr/bin/env python3
"""Bouncer as the moderation service of chat servers that already exist, with the real software:
Synapse (PyPI matrix-synapse) with the synapse-http-antispam module and the matrix-nio client, and
Stream's Before Message Send hook. Run by `make test` with the venv scripts/integrations-venv.sh
makes (its python has Synapse and matrix-nio):

    $(scripts/integrations-venv.sh) Tests/integrations/run.py --binary .build/debug/bouncer

Ends with a line "integration tests: N passed, N failed"; exits 0 only when every test passed."""
import argparse
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "dashboard"))

import synapse  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=".build/debug/bouncer", help="the bouncer binary")
    parser.add_argument("--artifacts", default=".build/integrations-artifacts", help="where the services' logs are kept")
    options, unittest_arguments = parser.parse_known_args()
    if not synapse.python_with_synapse():
        print(f"integration tests: {sys.executable} has no Synapse and matrix-nio; run this with the python that "
              "scripts/integrations-venv.sh prints (make test does)", file=sys.stderr)
        return 2
    if not os.access(options.binary, os.X_OK):
        print(f"integration tests: no bouncer binary at {options.binary} (swift build)", file=sys.stderr)
        return 2
    os.makedirs(options.artifacts, exist_ok=True)
    os.environ["BOUNCER_BINARY"] = os.path.abspath(options.binary)
    os.environ["BOUNCER_INTEGRATION_ARTIFACTS"] = os.path.abspath(options.artifacts)
    os.environ.setdefault("BOUNCER_SYNAPSE_PYTHON", sys.executable)
    import chat_servers  # noqa: E402 (reads the environment set above)

    started = time.monotonic()
    program = unittest.main(module=chat_servers, argv=[sys.argv[0], "-v", *unittest_arguments], exit=False)
    result = program.result
    failed = {test.id() for test, _ in result.failures + result.errors}
    print(f"integration tests: wall time {time.monotonic() - started:.1f}s; logs in {options.artifacts}")
    print(f"integration tests: {result.testsRun - len(failed)} passed, {len(failed)} failed")
    return 0 if result.wasSuccessful() and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
