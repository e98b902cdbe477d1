"""A fixed store, made through the API, and a fixed list of reads that show what it holds.

The same scenario fills the upgrade fixtures (made by an earlier release's own binary, see
make_fixture.py) and the stores the restore check backs up (run.py). It uses only what every
release since the fixtures' has served, so an earlier binary can make it.
"""
import http.client
import json
import os
import socket
import subprocess
import time
import urllib.parse

USERS = {"alice": "user", "bob": "user", "carol": "user", "dave": "user", "mod": "moderator", "root": "admin"}
CHANNEL = "messaging:general"
OTHER_CHANNEL = "team:ops"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """One bouncer process on loopback; `arguments` after `serve --port N`."""

    def __init__(self, binary, arguments, log, env=None):
        self.binary = binary
        self.port = free_port()
        self.process = subprocess.Popen([binary, "serve", "--port", str(self.port), *arguments],
                                        stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{binary} exited with {self.process.returncode} before it was ready (log: {log.name})")
            try:
                if self.request("GET", "/readyz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{binary} was not ready within 90 s (log: {log.name})")

    def request(self, method, path, token=None, body=None, content_type="application/json", timeout=30.0):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            data = None
            if body is not None:
                headers["Content-Type"] = content_type
                data = body if isinstance(body, (str, bytes)) else json.dumps(body)
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            raw = response.read()
            try:
                parsed = json.loads(raw) if raw else None
            except ValueError:
                parsed = raw.decode("utf-8", "replace")
            return response.status, parsed
        finally:
            connection.close()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def tokens(binary, store_arguments, env=None):
    """A token for each scenario user, minted with the data directory's secret."""
    minted = {}
    for user, role in USERS.items():
        minted[user] = subprocess.run([binary, "token", "--user", user, "--role", role, *store_arguments[:2]],
                                      capture_output=True, text=True, check=True, env=env).stdout.strip()
    return minted


class ScenarioError(Exception):
    pass


def populate(service, token):
    """Rules, messages in every state, edits, a resend, flags, reviews, bans, overrides, settings, a
    webhook: what a store of a few days' use holds. Returns the ids the reads need."""
    ids = {}

    def call(method, path, user, body=None, expect=(200, 201), content_type="application/json"):
        status, answer = service.request(method, path, token[user], body, content_type)
        if status not in expect:
            raise ScenarioError(f"{method} {path} as {user}: {status} {str(answer)[:300]}")
        return answer

    rules = [
        {"name": "darn", "kind": "word", "pattern": "darn", "action": "bounce"},
        {"name": "heck", "kind": "word", "pattern": "heck", "action": "flag"},
        {"name": "really", "kind": "word", "pattern": "really*", "action": "bounce_flag"},
        {"name": "cheap pills", "kind": "phrase", "pattern": "cheap pills", "action": "shadow"},
        {"name": "bad word", "kind": "regex", "pattern": "b[a4]d\\s*w[o0]rd", "action": "remove"},
        {"name": "gosh", "kind": "word", "pattern": "gosh", "action": "mask_flag", "channels": [CHANNEL]},
        {"name": "spam site", "kind": "domain", "pattern": "spam.example", "action": "bounce_remove"},
        {"name": "scunthorpe", "kind": "allow", "pattern": "scunthorpe"},
        {"name": "off", "kind": "word", "pattern": "unused", "action": "remove", "enabled": False, "priority": 3},
    ]
    for rule in rules:
        ids["rule:" + rule["name"]] = call("POST", "/v1/rules", "root", rule)["id"]
    call("PATCH", f"/v1/rules/{ids['rule:heck']}", "root", {"priority": 2, "channels": ["*"]})

    call("PATCH", "/v1/config", "root", {"auto_hide_flag_threshold": 2, "flag_reasons": [
        "spam", "harassment", "hate", "sexual", "violence", "self_harm", "misinformation", "inappropriate", "other", "off_topic"]})
    call("PUT", "/v1/localization/de", "root", {"strings": {"message.moderation.alert.title": "Wirklich senden?"}})
    call("PUT", "/v1/localization/fr", "root",
         '"message.bounce.title" = "Message renvoy\u00e9";\n"message.actions.flag" = "Signaler";\n'.encode("utf-8"),
         content_type="text/plain; charset=utf-8")
    call("DELETE", "/v1/localization/fr/message.actions.flag", "root", expect=(200, 204))

    def send(user, text, message_id, channel=CHANNEL, **extra):
        body = dict({"id": message_id, "text": text}, **extra)
        answer = call("POST", f"/v1/channels/{urllib.parse.quote(channel, safe='')}/messages", user, body)
        ids["message:" + message_id] = answer["id"]
        return answer

    send("alice", "hello everyone", "m-hello", custom={"order_id": 12345, "tags": ["a", "b"]})
    send("bob", "hi alice, welcome to scunthorpe", "m-welcome")
    send("carol", "oh heck, the build broke", "m-heck")
    send("alice", "well darn it", "m-darn")
    send("bob", "really sure about this?", "m-really")
    send("carol", "gosh that is loud", "m-gosh")
    send("dave", "buy cheap pills now", "m-pills")
    send("dave", "what a bad word", "m-removed")
    send("dave", "visit http://spam.example/offer", "m-link")
    send("alice", "a reply in the thread", "m-reply", parent_id="m-hello")
    send("bob", "in another channel", "m-other", channel=OTHER_CHANNEL)
    send("carol", "to be deleted", "m-deleted", custom={"url": "https://example.com/a.png"})
    send("alice", "first version", "m-edited")
    for index in range(5):
        send("bob", f"message number {index}", f"m-page-{index}")

    call("PATCH", "/v1/messages/m-edited", "alice", {"text": "second version"})
    call("PATCH", "/v1/messages/m-edited", "alice", {"text": "third version"})
    call("PATCH", "/v1/messages/m-darn", "alice", {"text": "well, it happens"})  # out of the bounce
    call("POST", "/v1/messages/m-really/resend", "bob")  # Send Anyway on bounce_flag: delivered, flagged
    call("DELETE", "/v1/messages/m-deleted", "carol", expect=(200, 204))

    call("POST", "/v1/messages/m-hello/flag", "bob", {"reason": "spam", "details": "looks automated"})
    call("POST", "/v1/messages/m-hello/flag", "carol", {"reason": "off_topic"})  # hidden at two
    call("POST", "/v1/messages/m-welcome/flag", "alice", {"reason": "harassment"})
    call("DELETE", "/v1/messages/m-welcome/flag", "alice", expect=(200, 204))
    call("POST", "/v1/messages/m-page-1/flag", "carol", {"reason": "other", "details": "odd"})
    call("POST", "/v1/messages/m-page-2/flag", "alice", {"reason": "hate"})
    call("POST", "/v1/messages/m-page-3/flag", "dave", {"reason": "violence"})

    call("POST", "/v1/messages/m-heck/review", "mod", {"decision": "dismiss", "note": "harmless"})
    call("POST", "/v1/messages/m-page-1/review", "mod", {"decision": "remove_message", "note": "off"})
    call("POST", "/v1/messages/m-page-2/review", "mod", {"decision": "ban_author", "note": "repeat"})

    call("POST", "/v1/users/dave/ban", "mod", {"reason": "spam links", "shadow": True})
    call("DELETE", "/v1/users/bob/ban", "mod", expect=(200, 204))

    ids["webhook"] = call("POST", "/v1/webhooks", "root",
                          {"url": "https://hooks.example.com/bouncer", "types": ["user.unbanned"], "description": "ops"})["id"]
    call("PATCH", f"/v1/webhooks/{ids['webhook']}", "root", {"enabled": False})
    return ids


def reads(ids, newer=False):
    """(name, user, path): the fixed list of reads, every GET route with what the scenario made.
    `newer` adds the routes the fixtures' release did not have yet."""
    rule = ids["rule:heck"]
    webhook = ids["webhook"]
    channel = urllib.parse.quote(CHANNEL, safe="")
    listed = [
        ("rules", "mod", "/v1/rules?limit=100"),
        ("rules by kind", "mod", "/v1/rules?kind=word&limit=100"),
        ("rule", "mod", f"/v1/rules/{rule}"),
        ("config", "root", "/v1/config"),
        ("channel as alice", "alice", f"/v1/channels/{channel}/messages?limit=50"),
        ("channel as mod", "mod", f"/v1/channels/{channel}/messages?limit=50"),
        ("channel first page", "carol", f"/v1/channels/{channel}/messages?limit=3"),
        ("other channel", "bob", "/v1/channels/team%3Aops/messages"),
        ("flags", "mod", "/v1/flags?limit=100"),
        ("open flags", "mod", "/v1/flags?state=open&limit=100"),
        ("flags by reporter", "mod", "/v1/flags?reporter_id=carol"),
        ("review queue", "mod", "/v1/review-queue?limit=50"),
        ("review queue oldest", "mod", "/v1/review-queue?sort=oldest&limit=50"),
        ("bans", "mod", "/v1/bans"),
        ("audit", "mod", "/v1/audit?limit=200"),
        ("audit reviews", "mod", "/v1/audit?action=flag.review&limit=200"),
        ("events", "mod", "/v1/events?limit=200"),
        ("localization de", "alice", "/v1/localization?locale=de"),
        ("localization fr", "alice", "/v1/localization/fr"),
        ("locales", "alice", "/v1/localization/locales"),
        ("webhooks", "root", "/v1/webhooks"),
        ("webhook", "root", f"/v1/webhooks/{webhook}"),
        ("webhook deliveries", "root", f"/v1/webhooks/{webhook}/deliveries"),
        ("me", "mod", "/v1/me"),
    ]
    for name in ["m-hello", "m-welcome", "m-heck", "m-darn", "m-really", "m-gosh", "m-pills", "m-removed",
                 "m-link", "m-reply", "m-other", "m-deleted", "m-edited", "m-page-1", "m-page-2"]:
        listed.append((f"{name} as mod", "mod", f"/v1/messages/{name}"))
        listed.append((f"{name} as author", author_of(name), f"/v1/messages/{name}"))
        listed.append((f"{name} as carol", "carol", f"/v1/messages/{name}"))
        listed.append((f"{name} actions", "alice", f"/v1/messages/{name}/actions"))
    listed.append(("m-deleted as bob", "bob", "/v1/messages/m-deleted"))
    listed.append(("m-edited revisions", "mod", "/v1/messages/m-edited/revisions"))
    listed.append(("m-darn revisions", "mod", "/v1/messages/m-darn/revisions"))
    if newer:
        listed += [
            ("rule stats", "mod", "/v1/rules/stats?limit=100"),
            ("heck stats", "mod", f"/v1/rules/{rule}/stats"),
            ("alice's messages", "mod", "/v1/users/alice/messages"),
            ("dave's messages", "mod", "/v1/users/dave/messages"),
        ]
    return listed


AUTHORS = {"m-hello": "alice", "m-welcome": "bob", "m-heck": "carol", "m-darn": "alice", "m-really": "bob",
           "m-gosh": "carol", "m-pills": "dave", "m-removed": "dave", "m-link": "dave", "m-reply": "alice",
           "m-other": "bob", "m-deleted": "carol", "m-edited": "alice", "m-page-1": "bob", "m-page-2": "bob"}


def author_of(name):
    return AUTHORS[name]


def read_all(service, token, ids, newer=False):
    """Every read's status and answer, by name."""
    answers = {}
    for name, user, path in reads(ids, newer):
        status, answer = service.request("GET", path, token[user])
        answers[name] = {"path": path, "user": user, "status": status, "answer": answer}
    return answers


def differences(expected, actual, where="", ignored=()):
    """Where `actual` does not hold what `expected` holds: every member of an expected object must
    be in the actual one with an equal value (a newer release may add members), lists must match
    item for item. Paths listed in `ignored` (as "read name/member/...") are skipped."""
    if where in ignored or where.endswith("/request_id"):  # a request's own id differs each time
        return []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {json.dumps(actual)[:200]}"]
        found = []
        for key, value in expected.items():
            if key not in actual:
                if f"{where}/{key}" not in ignored:
                    found.append(f"{where}/{key}: missing (was {json.dumps(value)[:200]})")
                continue
            found += differences(value, actual[key], f"{where}/{key}", ignored)
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{where}: expected {len(expected)} items, got {json.dumps(actual)[:300]}"]
        found = []
        for index, (a, b) in enumerate(zip(expected, actual)):
            found += differences(a, b, f"{where}/{index}", ignored)
        return found
    if expected != actual:
        return [f"{where}: expected {json.dumps(expected)[:200]}, got {json.dumps(actual)[:200]}"]
    return []


def store_arguments(data, url=None):
    return ["--data-dir", data] + (["--database-url", url] if url else [])


def psql(url, sql):
    return subprocess.run(["psql", "-v", "ON_ERROR_STOP=1", "-Atq", url, "-c", sql],
                          capture_output=True, text=True, check=True).stdout.strip()


def new_database(url, name):
    """An empty database `name` on the server of `url`; its URL."""
    parsed = urllib.parse.urlsplit(url)
    psql(url, f'DROP DATABASE IF EXISTS "{name}"')
    psql(url, f'CREATE DATABASE "{name}"')
    return urllib.parse.urlunsplit(parsed._replace(path="/" + name))


def environment():
    return dict(os.environ)
