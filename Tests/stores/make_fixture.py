#!/usr/bin/env python3
"""Makes an upgrade fixture with a release's own binary: the scenario's store as an SQL dump, and
what that release answered to the scenario's reads.

    git worktree add /tmp/release COMMIT && (cd /tmp/release && swift build -c release --product bouncer)
    scripts/with-postgres.sh python3 Tests/stores/make_fixture.py \
        --binary /tmp/release/.build/release/bouncer --commit COMMIT --out Tests/stores/fixtures/COMMIT

writes `sqlite.sql` (sqlite3's .dump), `postgres.sql` (pg_dump, plain SQL) and `reads-<store>.json`
into --out. PostgreSQL is the server of BOUNCER_TEST_POSTGRES_URL; without it only SQLite's is made.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario  # noqa: E402


def make(binary, work, out, store, url=None):
    data = os.path.join(work, f"data-{store}")
    database = scenario.new_database(url, "bouncer_fixture") if store == "postgres" else None
    arguments = scenario.store_arguments(data, database)
    token = scenario.tokens(binary, arguments)
    with open(os.path.join(work, f"{store}.log"), "w") as log:
        service = scenario.Service(binary, arguments, log)
        try:
            ids = scenario.populate(service, token)
            answers = scenario.read_all(service, token, ids)
        finally:
            service.stop()
    # 404 is what a caller gets for a message it may not see.
    failed = {name: read["status"] for name, read in answers.items() if read["status"] not in (200, 404)}
    if failed:
        raise SystemExit(f"{store}: reads that answered neither 200 nor 404: {failed}")
    if store == "sqlite":
        dump = subprocess.run(["sqlite3", os.path.join(data, "bouncer.sqlite3"), ".dump"],
                              capture_output=True, text=True, check=True).stdout
    else:
        dump = subprocess.run(["pg_dump", "--no-owner", "--no-privileges", "--format=plain", database],
                              capture_output=True, text=True, check=True).stdout
        # pg_dump's \restrict guard (a random key) would make every dump differ and needs psql 15.14;
        # this dump is our own.
        dump = "".join(line for line in dump.splitlines(keepends=True) if not line.startswith(("\\restrict", "\\unrestrict")))
    with open(os.path.join(out, f"{store}.sql"), "w") as file:
        file.write(dump)
    with open(os.path.join(out, f"reads-{store}.json"), "w") as file:
        json.dump({"ids": ids, "reads": answers}, file, indent=1, sort_keys=True, ensure_ascii=False)
        file.write("\n")
    print(f"{store}: {len(answers)} reads, a dump of {len(dump)} bytes", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--commit", required=True, help="the release the binary was built from")
    parser.add_argument("--out", required=True)
    options = parser.parse_args()
    os.makedirs(options.out, exist_ok=True)
    url = os.environ.get("BOUNCER_TEST_POSTGRES_URL")
    with tempfile.TemporaryDirectory(prefix="bouncer-fixture-") as work:
        make(options.binary, work, options.out, "sqlite")
        if url:
            make(options.binary, work, options.out, "postgres", url)
        else:
            print("postgres: BOUNCER_TEST_POSTGRES_URL is unset; run under scripts/with-postgres.sh", flush=True)
    with open(os.path.join(options.out, "COMMIT"), "w") as file:
        file.write(options.commit + "\n")


if __name__ == "__main__":
    main()
