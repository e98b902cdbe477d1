#!/usr/bin/env python3
"""A PostgreSQL failover under load, survived without a restart of Bouncer.

A pg_auto_failover monitor, primary and synchronous standby on loopback (scripts/postgres-ha.sh);
three Bouncer instances on the multi-host URL (target_session_attrs=read-write); senders on every
instance; then the primary dies (kill -9 of its keeper and postmaster) and the standby is
promoted. What must hold, and what is measured:

- while no primary takes writes, sends are answered 503 with Retry-After, never anything else;
- within 10 s of the kill, sends succeed again on every instance;
- every send acknowledged (201) before, during and after is in the new primary;
- /readyz says 503 while sends are refused and 200 once they succeed;
- a rule added after the failover is in force on every instance within a second (the listener
  for changes connected again).

Prints, for each run, the time without any acknowledged send, the acknowledged writes lost and
the sends answered 503. Exits non-zero on any failure. Everything listens on 127.0.0.1 and stops
by itself.
"""
import argparse
import http.client
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HA = os.path.join(ROOT, "scripts", "postgres-ha.sh")
INSTANCES = 3
SENDERS_PER_INSTANCE = 2
RECOVERY_LIMIT = 10.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Instance:
    def __init__(self, binary, url, data, secret, log):
        self.port = free_port()
        env = dict(os.environ, BOUNCER_JWT_SECRET=secret)
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(self.port), "--data-dir", data, "--database-url", url, "--send-rate-per-user", "0"],
            stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.status("GET", "/readyz")[0] == 200:
                return
            time.sleep(0.1)
        raise RuntimeError(f"instance on {self.port} did not become ready")

    def request(self, method, path, token=None, body=None, timeout=5.0):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {}
            if token:
                headers["Authorization"] = f"Bearer {token}"
            if body is not None:
                headers["Content-Type"] = "application/json"
            connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
            response = connection.getresponse()
            return response.status, response.getheader("Retry-After"), response.read()
        finally:
            connection.close()

    def status(self, method, path, token=None, body=None):
        try:
            status, retry, _ = self.request(method, path, token, body)
            return status, retry
        except OSError:
            return None, None

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Record:
    def __init__(self):
        self.lock = threading.Lock()
        self.sends = []  # (answered, instance, id, status, retry_after, sent)

    def add(self, *entry):
        with self.lock:
            self.sends.append(entry)


def sender(instance, number, thread, token, record, stop, prefix):
    index = 0
    while not stop.is_set():
        message_id = f"{prefix}-{number}-{thread}-{index}"
        index += 1
        began = time.monotonic()
        try:
            status, retry, _ = instance.request("POST", "/v1/channels/messaging:failover/messages", token,
                                                {"id": message_id, "text": f"message {message_id}"}, timeout=15)
        except OSError as error:
            status, retry = f"error {type(error).__name__}", None
        record.add(time.monotonic(), number, message_id, status, retry, began)
        if status != 201:
            time.sleep(0.05)


def token(binary, data, secret, user, role):
    env = dict(os.environ, BOUNCER_JWT_SECRET=secret)
    return subprocess.run([binary, "token", "--user", user, "--role", role, "--data-dir", data], env=env,
                          capture_output=True, text=True, check=True).stdout.strip()


def ha(*arguments):
    done = subprocess.run([HA, *arguments], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"postgres-ha.sh {' '.join(arguments)} exited with {done.returncode}:\n{done.stderr.strip()}")
    return done.stdout.strip()


def start_cluster():
    """The primary and its standby. A start that fails (it cleans up after itself) is tried once
    more, with its reason printed: the cluster is the test's ground, not what it tests."""
    try:
        return ha("start").splitlines()
    except RuntimeError as failure:
        print(f"the cluster did not start, trying once more: {failure}", flush=True)
        return ha("start").splitlines()


def psql(url, sql):
    return subprocess.run(["psql", "-Atq", url, "-c", sql], capture_output=True, text=True, check=True).stdout.strip()


def one_run(binary, work, number):
    failures = []
    started = start_cluster()
    directory, url = started[0], started[1]
    instances = []
    log = open(os.path.join(work, f"bouncer-{number}.log"), "w")
    print(f"run {number}: the instances' log is {log.name}", flush=True)
    try:
        data = os.path.join(work, f"data-{number}")
        secret = secrets.token_hex(32)
        user = token(binary, data, secret, "alice", "user")
        admin = token(binary, data, secret, "root", "admin")
        instances = [Instance(binary, url, data, secret, log) for _ in range(INSTANCES)]
        record, stop = Record(), threading.Event()
        threads = [threading.Thread(target=sender, args=(instance, index, thread, user, record, stop, f"r{number}"), daemon=True)
                   for index, instance in enumerate(instances) for thread in range(SENDERS_PER_INSTANCE)]
        for thread in threads:
            thread.start()
        time.sleep(3)
        primary = ha("primary", directory).split()[0]
        standby = "node2" if primary == "node1" else "node1"
        killed = time.monotonic()
        ha("kill", directory, primary)

        # /readyz through the outage: 503 seen while sends fail, 200 on every instance after.
        readiness = []
        recovered = [None] * INSTANCES
        while time.monotonic() - killed < 30 and None in recovered:
            for index, instance in enumerate(instances):
                readiness.append((time.monotonic(), index, instance.status("GET", "/readyz")[0]))
            # An instance has recovered with its first send made after its first refusal (the
            # server's backends can finish what they have for a moment after the postmaster died).
            with record.lock:
                refused = [None] * INSTANCES
                for at, index, _, status, _, sent in record.sends:
                    if at > killed and status != 201 and refused[index] is None:
                        refused[index] = at
                    if status == 201 and refused[index] is not None and sent > refused[index] and recovered[index] is None:
                        recovered[index] = at - killed
            time.sleep(0.1)
        time.sleep(3)  # sends go on after the failover
        stop.set()
        for thread in threads:
            thread.join(timeout=20)

        for index, seconds in enumerate(recovered):
            if seconds is None or seconds > RECOVERY_LIMIT:
                failures.append(f"instance {index + 1}: sends succeeded again after {seconds} s (limit {RECOVERY_LIMIT} s)")
        sends = record.sends
        statuses = {}
        for _, _, _, status, retry, _ in sends:
            statuses[status] = statuses.get(status, 0) + 1
            if status == 503 and retry is None:
                failures.append("a 503 without Retry-After")
        unexpected = {status: count for status, count in statuses.items() if status not in (201, 503)}
        if unexpected:
            failures.append(f"answers other than 201 and 503: {unexpected}")
        acknowledged = [message_id for _, _, message_id, status, _, _ in sends if status == 201]
        # The longest time in which no instance acknowledged a send.
        answered = sorted(at for at, _, _, status, _, _ in sends if status == 201)
        gap = max((b - a for a, b in zip(answered, answered[1:])), default=None)
        timeline = {}
        for at, _, _, status, _, _ in sends:
            second = int((at - killed) * 2) / 2
            timeline.setdefault(second, {}).setdefault(status, 0)
            timeline[second][status] += 1
        print("  answers by half second from the kill: " + "; ".join(
            f"{second:+.1f} {counts}" for second, counts in sorted(timeline.items()) if -1 <= second <= 12), flush=True)
        for at, index, message_id, status, _, sent in sends:
            if status not in (201, 503):
                print(f"  instance {index + 1}: {message_id} sent {sent - killed:+.2f} s from the kill, answered {status} "
                      f"{at - killed:+.2f} s", flush=True)

        # Every acknowledged message, in the database that is primary now.
        ha("wait-primary", directory, standby, "30")
        stored = set()
        for start in range(0, len(acknowledged), 2000):
            part = acknowledged[start:start + 2000]
            listed = ",".join("'" + message_id + "'" for message_id in part)
            stored.update(psql(url, f"SELECT id FROM messages WHERE id IN ({listed})").split())
        lost = [message_id for message_id in acknowledged if message_id not in stored]
        if lost:
            failures.append(f"{len(lost)} acknowledged messages lost, e.g. {lost[:5]}")

        refused_ready = [at for at, _, status in readiness if status == 503]
        if statuses.get(503, 0) and not refused_ready:
            failures.append("/readyz never said 503 while sends were refused")
        # Ready once a write commits after the instance's last refusal (or 5 s after it): a send
        # refused late in the outage can follow the first commits, so each is given 10 s.
        for index, instance in enumerate(instances):
            deadline = time.monotonic() + 10
            while instance.status("GET", "/readyz")[0] != 200 and time.monotonic() < deadline:
                time.sleep(0.2)
            if instance.status("GET", "/readyz")[0] != 200:
                failures.append(f"instance {index + 1}: /readyz is not 200 within 10 s after the failover")

        # A rule added on one instance after the failover is in force on the others within 1 s.
        word = "failover" + secrets.token_hex(3)
        status, _, body = instances[0].request("POST", "/v1/rules", admin, {"kind": "word", "pattern": word, "action": "bounce"})
        if status != 201:
            failures.append(f"adding a rule after the failover: {status} {body[:200]}")
        added = time.monotonic()
        for index, instance in enumerate(instances[1:], start=2):
            in_force = None
            while time.monotonic() - added < 5 and in_force is None:
                status, _, body = instance.request("POST", "/v1/channels/messaging:failover/messages", user,
                                                   {"text": f"a {word} here"})
                if status == 201 and json.loads(body).get("state") == "bounced":
                    in_force = time.monotonic() - added
                else:
                    time.sleep(0.05)
            if in_force is None or in_force > 1.0:
                failures.append(f"instance {index}: the new rule in force after {in_force} s (limit 1 s)")

        print(f"run {number}: killed {primary}; no send acknowledged for {gap:.2f} s; "
              f"every instance sending again after {max(s for s in recovered if s is not None):.2f} s at most "
              f"({', '.join(f'{s:.2f}' for s in recovered if s is not None)}); "
              f"{len(acknowledged)} acknowledged, {len(lost)} lost; {statuses.get(503, 0)} answered 503"
              if gap is not None and None not in recovered else f"run {number}: {statuses}", flush=True)
    finally:
        for instance in instances:
            instance.stop()
        log.close()
        subprocess.run([HA, "stop", directory], capture_output=True)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--runs", type=int, default=1)
    failures = []
    parser.add_argument("--keep", action="store_true", help="keep the instances' logs")
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="bouncer-failover.")
    try:
        for number in range(1, arguments.runs + 1):
            failures += [f"run {number}: {failure}" for failure in one_run(os.path.abspath(arguments.binary), work, number)]
    finally:
        if not arguments.keep:
            subprocess.run(["rm", "-rf", work])
    for failure in failures:
        print("FAIL " + failure, flush=True)
    print(f"{arguments.runs - len({f.split(':')[0] for f in failures})} passed, {len({f.split(':')[0] for f in failures})} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
