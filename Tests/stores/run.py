#!/usr/bin/env python3
"""Restores and upgrades, on both stores, checked through the API's reads.

- upgrade: each fixture in Tests/stores/fixtures/ (a store made by an earlier release's own binary,
  kept as an SQL dump with what that release answered) is loaded into a new store; this binary
  starts on it, migrating it in place, and must answer every read at least as the release did
  (it may add members; the differences listed in CHANGED are the fixes made since, each with its
  reason). Then it takes writes on the upgraded store and serves the routes added since.
- restore: this binary makes the scenario's store, sends go on in a channel of their own, and
  backups are taken meanwhile (`POST /v1/admin/backup` and `bouncer backup`). Each backup is
  restored (SQLite: the copy as the store of a new data directory; PostgreSQL: pg_restore into an
  empty database) and must answer the fixed reads exactly as the original does, and hold every send
  acknowledged before the backup began and none that was never acknowledged.

PostgreSQL's checks use the server of BOUNCER_TEST_POSTGRES_URL (scripts/with-postgres.sh); without
it they are skipped, saying so. Exits non-zero on any failure; everything listens on 127.0.0.1.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scenario  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures")
# Keep every event and audit entry of a fixture, however old it is by now.
SERVE = ["--event-retention-days", "3650", "--send-rate-per-user", "0"]

# Answers that changed on purpose since the fixtures' release: read name/member path -> why.
CHANGED = {
    # A deleted message's tombstone shows its custom data (an attachment's URL, say) to moderators
    # only, its author included: the text is gone for them too.
    "m-deleted as bob/answer/custom": "a tombstone's custom data is for moderators",
    "m-deleted as carol/answer/custom": "a tombstone's custom data is for moderators",
    "m-deleted as author/answer/custom": "a tombstone's custom data is for moderators",
    "channel as alice/answer/messages/7/custom": "a tombstone's custom data is for moderators",
    # Webhook URLs often carry the receiver's secret: the audit shows them to admins only.
    "audit/answer/entries/20/details/url": "a webhook's URL is for admins",
}


class Failures(list):
    def check(self, condition, message):
        if not condition:
            self.append(message)
            print(f"  FAIL {message}", flush=True)


def compare(failures, label, expected, actual, ignored=(), exact=False):
    """Every expected read answered alike (and, with `exact`, nothing more)."""
    for name, read in expected.items():
        got = actual.get(name)
        if got is None:
            failures.check(False, f"{label}: read {name!r} was not made")
            continue
        failures.check(got["status"] == read["status"], f"{label}: {name} ({read['path']} as {read['user']}) "
                       f"answered {got['status']}, not {read['status']}")
        found = scenario.differences(read["answer"], got["answer"], f"{name}/answer", ignored)
        if exact and not found:
            found = [f"more than expected: {entry}" for entry in scenario.differences(got["answer"], read["answer"], f"{name}/answer")]
        for entry in found[:5]:
            failures.check(False, f"{label}: {read['path']} as {read['user']}: {entry}")


def mint(binary, arguments, users=("loader",)):
    minted = scenario.tokens(binary, arguments)
    for user in users:
        minted[user] = subprocess.run([binary, "token", "--user", user, "--role", "user", *arguments[:2]],
                                      capture_output=True, text=True, check=True).stdout.strip()
    return minted


# -- upgrades ------------------------------------------------------------------------------------

def load_fixture(store, fixture, work, url):
    """A new store from the fixture's dump; the store arguments that reach it."""
    data = os.path.join(work, f"upgrade-{os.path.basename(fixture)}-{store}")
    os.makedirs(data)
    dump = os.path.join(fixture, f"{store}.sql")
    if store == "sqlite":
        with open(dump) as file:
            subprocess.run(["sqlite3", "-bail", os.path.join(data, "bouncer.sqlite3")], stdin=file, check=True,
                           capture_output=True)
        return scenario.store_arguments(data)
    database = scenario.new_database(url, "bouncer_upgrade")
    subprocess.run(["psql", "-v", "ON_ERROR_STOP=1", "-q", "-f", dump, database], check=True, capture_output=True)
    return scenario.store_arguments(data, database)


def check_upgrade(binary, store, fixture, work, url, failures):
    label = f"upgrade from {open(os.path.join(fixture, 'COMMIT')).read().strip()} on {store}"
    with open(os.path.join(fixture, f"reads-{store}.json")) as file:
        recorded = json.load(file)
    arguments = load_fixture(store, fixture, work, url)
    status = subprocess.run([binary, "migrate", "--status", *arguments], capture_output=True, text=True)
    pending = status.stdout.count("pending")
    token = mint(binary, arguments)
    with open(os.path.join(work, f"{os.path.basename(arguments[1])}.log"), "w") as log:
        began = time.monotonic()
        service = scenario.Service(binary, arguments + SERVE, log)
        started = time.monotonic() - began
        try:
            answers = scenario.read_all(service, token, recorded["ids"], newer=True)
            compare(failures, label, recorded["reads"], answers, ignored=CHANGED)
            for name in ("rule stats", "heck stats", "alice's messages", "dave's messages"):
                failures.check(answers[name]["status"] == 200, f"{label}: {name} answered {answers[name]['status']}")
            written = writes_after_upgrade(service, token, recorded["ids"])
            for entry in written:
                failures.check(False, f"{label}: {entry}")
        finally:
            service.stop()
        again = scenario.Service(binary, arguments + SERVE, log)  # a second start applies nothing
        again.stop()
    after = subprocess.run([binary, "migrate", "--status", *arguments], capture_output=True, text=True)
    failures.check(after.returncode == 0 and "pending" not in after.stdout, f"{label}: migrations still pending: {after.stdout}")
    print(f"{label}: {len(answers)} reads, {pending} migrations applied at start, ready in {started:.1f} s", flush=True)


def writes_after_upgrade(service, token, ids):
    """Sends, flags, a review and a rule change on the upgraded store: what goes wrong, if anything."""
    problems = []
    status, sent = service.request("POST", "/v1/channels/messaging%3Ageneral/messages", token["carol"], {"text": "oh heck again"})
    if status != 201:
        return [f"a send after the upgrade answered {status} {sent}"]
    status, _ = service.request("POST", f"/v1/messages/{sent['id']}/review", token["mod"], {"decision": "remove_message"})
    if status != 200:
        problems.append(f"a review after the upgrade answered {status}")
    status, stats = service.request("GET", f"/v1/rules/{ids['rule:heck']}/stats", token["mod"])
    if status != 200 or stats.get("confirmed") != 1 or stats.get("hits") != 1:
        problems.append(f"the new hit and its removal are not in the rule's stats: {status} {stats}")
    status, rule = service.request("PATCH", f"/v1/rules/{ids['rule:darn']}", token["root"], {"mode": "observe"})
    if status != 200 or rule.get("mode") != "observe":
        problems.append(f"a rule put in observe mode after the upgrade: {status} {rule}")
    status, message = service.request("POST", "/v1/channels/messaging%3Ageneral/messages", token["alice"], {"text": "darn"})
    if status != 201 or message.get("state") != "delivered":
        problems.append(f"a send matching an observed rule: {status} {message}")
    status, page = service.request("GET", "/v1/channels/messaging%3Ageneral/messages?limit=2", token["bob"])
    if status != 200 or [m["id"] for m in page["messages"]][-1:] != [message.get("id")]:
        problems.append(f"the newest send is not the channel's newest: {status} {page}")
    return problems


# -- restores ------------------------------------------------------------------------------------

def send_until_stopped(service, token, acknowledged, stop):
    index = 0
    while not stop.is_set():
        message_id = f"load-{threading.get_ident()}-{index}"
        index += 1
        try:
            status, _ = service.request("POST", "/v1/channels/load%3Aone/messages", token, {"id": message_id, "text": f"load {index}"})
        except OSError:
            continue
        if status == 201:
            with acknowledged[0]:
                acknowledged[1].append(message_id)


def stored_load_ids(store, arguments):
    if store == "sqlite":
        out = subprocess.run(["sqlite3", os.path.join(arguments[1], "bouncer.sqlite3"),
                              "SELECT id FROM messages WHERE channel_id = 'load:one'"], capture_output=True, text=True, check=True).stdout
    else:
        out = scenario.psql(arguments[3], "SELECT id FROM messages WHERE channel_id = 'load:one'")
    return set(out.split())


def wait_for_rule_hits(store, arguments, service, token):
    """Rule hits reach the store in batches, about once a second: waits until the scenario's are
    there (GET /v1/rules/stats counts the ones not yet written too), so a backup holds them."""
    _, listed = service.request("GET", "/v1/rules/stats?limit=100", token["mod"])
    expected = sum(rule["hits"] for rule in listed["stats"])
    query = "SELECT coalesce(sum(enforced + observed), 0) FROM rule_hits"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if store == "sqlite":
            written = subprocess.run(["sqlite3", os.path.join(arguments[1], "bouncer.sqlite3"), query],
                                     capture_output=True, text=True).stdout.strip()
        else:
            written = scenario.psql(arguments[3], query)
        if written == str(expected):
            return
        time.sleep(0.05)
    raise RuntimeError(f"the scenario's {expected} rule hits were not written within 30 s")


def check_restore(binary, store, work, url, failures):
    label = f"restore on {store}"
    data = os.path.join(work, f"restore-{store}")
    database = scenario.new_database(url, "bouncer_original") if store == "postgres" else None
    arguments = scenario.store_arguments(data, database)
    token = mint(binary, arguments)
    extension = "sqlite3" if store == "sqlite" else "dump"
    with open(os.path.join(work, f"restore-{store}.log"), "w") as log:
        service = scenario.Service(binary, arguments + SERVE, log)
        try:
            ids = scenario.populate(service, token)
            wait_for_rule_hits(store, arguments, service, token)
            acknowledged, stop = (threading.Lock(), []), threading.Event()
            senders = [threading.Thread(target=send_until_stopped, args=(service, token["loader"], acknowledged, stop))
                       for _ in range(4)]
            for sender in senders:
                sender.start()
            deadline = time.monotonic() + 30
            while len(acknowledged[1]) < 50 and time.monotonic() < deadline:
                time.sleep(0.05)
            with acknowledged[0]:
                before = set(acknowledged[1])
            status, made = service.request("POST", "/v1/admin/backup", token["root"])
            copy = os.path.join(work, f"copy-{store}.{extension}")
            cli = subprocess.run([binary, "backup", copy, *arguments], capture_output=True, text=True)
            stop.set()
            for sender in senders:
                sender.join()
            failures.check(status == 201, f"{label}: POST /v1/admin/backup answered {status} {made}")
            failures.check(cli.returncode == 0, f"{label}: bouncer backup: {cli.stdout} {cli.stderr}")
            failures.check(len(before) >= 50, f"{label}: only {len(before)} sends acknowledged before the backup")
            original = scenario.read_all(service, token, ids, newer=True)
        finally:
            service.stop()
    everything = set(acknowledged[1])
    # The API's backup is audited after its copy is made; the command's copy, later, holds that entry.
    for name in ("audit",):
        original[name]["answer"]["entries"] = [e for e in original[name]["answer"]["entries"] if e["action"] != "store.backup"]

    copies = [("the API's backup", made.get("path") if status == 201 else None), ("bouncer backup", copy if cli.returncode == 0 else None)]
    for number, (source, path) in enumerate(copies):
        if path is None:
            continue
        restored = os.path.join(work, f"restored-{store}-{number}")
        os.makedirs(restored)
        shutil.copy(os.path.join(data, "jwt-secret"), restored)
        if store == "sqlite":
            shutil.copy(path, os.path.join(restored, "bouncer.sqlite3"))
            restored_arguments = scenario.store_arguments(restored)
        else:
            target = scenario.new_database(url, f"bouncer_restored_{number}")
            subprocess.run(["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={target}", path], check=True, capture_output=True)
            restored_arguments = scenario.store_arguments(restored, target)
        with open(os.path.join(work, f"restored-{store}-{number}.log"), "w") as log:
            service = scenario.Service(binary, restored_arguments + SERVE, log)
            try:
                answers = scenario.read_all(service, token, ids, newer=True)
            finally:
                service.stop()
        answers["audit"]["answer"]["entries"] = [e for e in answers["audit"]["answer"]["entries"] if e["action"] != "store.backup"]
        compare(failures, f"{label}, {source}", original, answers, exact=True)
        loaded = stored_load_ids(store, restored_arguments)
        failures.check(before <= loaded, f"{label}, {source}: {len(before - loaded)} sends acknowledged before the backup are missing")
        failures.check(loaded <= everything, f"{label}, {source}: {len(loaded - everything)} sends never acknowledged are in it")
        print(f"{label}, {source}: {len(answers)} reads alike; {len(loaded)} of {len(everything)} load sends "
              f"({len(before)} acknowledged before the backup began)", flush=True)


def fixture_directories():
    """Each fixture is a directory holding the release's COMMIT; files beside them (the README) are not."""
    found = [os.path.join(FIXTURES, name) for name in sorted(os.listdir(FIXTURES))]
    found = [path for path in found if os.path.isfile(os.path.join(path, "COMMIT"))]
    if not found:
        raise SystemExit(f"no fixtures under {FIXTURES}")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--only", choices=["upgrade", "restore"])
    options = parser.parse_args()
    binary = os.path.abspath(options.binary)
    url = os.environ.get("BOUNCER_TEST_POSTGRES_URL")
    stores = ["sqlite"] + (["postgres"] if url else [])
    if not url:
        print("PostgreSQL: BOUNCER_TEST_POSTGRES_URL is unset; its checks are skipped (run under scripts/with-postgres.sh)")
    failures = Failures()
    with tempfile.TemporaryDirectory(prefix="bouncer-stores-") as work:
        for store in stores:
            if options.only in (None, "upgrade"):
                for fixture in fixture_directories():
                    check_upgrade(binary, store, fixture, work, url, failures)
            if options.only in (None, "restore"):
                check_restore(binary, store, work, url, failures)
        if failures:
            print(f"{len(failures)} failures; logs kept in {work}.kept", flush=True)
            shutil.copytree(work, work + ".kept")
            sys.exit(1)
    print("stores: every check passed")


if __name__ == "__main__":
    main()
