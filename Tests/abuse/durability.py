"""Crash durability and graceful shutdown under load: nothing acknowledged is ever lost."""
import http.client
import random
import signal
import threading
import time

from harness import Failure, Service, check, send_message, temporary_directory


class Writers:
    """`count` threads, each a user on its own keep-alive connection, sending messages with
    client ids until told to stop. Every id is "in doubt" until its 200/201 arrives."""

    def __init__(self, service, count, tag):
        self.service = service
        self.tokens = [service.token(f"writer-{tag}-{index}") for index in range(count)]
        self.tag = tag
        self.lock = threading.Lock()
        self.acknowledged = {}
        self.in_doubt = {}
        self.unexpected = []
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.write, args=(index,), daemon=True) for index in range(count)]

    def start(self):
        for thread in self.threads:
            thread.start()
        return self

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=30)

    def write(self, index):
        connection = None
        number = 0
        failures_in_a_row = 0
        while not self.stopping.is_set() and failures_in_a_row < 50:
            message_id = f"{self.tag}-w{index}-{number}"
            text = f"{self.tag} writer {index} message {number} " + "x" * (number % 97)
            number += 1
            with self.lock:
                self.in_doubt[message_id] = text
            try:
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", self.service.port, timeout=10)
                status = send_message(connection, self.tokens[index], f"messaging:durable{index % 3}", message_id, text)
            except (OSError, http.client.HTTPException):
                connection = None
                failures_in_a_row += 1
                time.sleep(0.01)
                continue
            failures_in_a_row = 0
            with self.lock:
                if status in (200, 201):
                    del self.in_doubt[message_id]
                    self.acknowledged[message_id] = text
                else:
                    self.unexpected.append((message_id, status))


def verify_store(service, acknowledged, in_doubt):
    """Every acknowledged message once with its text; one in doubt whole or absent; nothing
    else; and SQLite's own integrity check."""
    with service.store() as store:
        check(store.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "PRAGMA integrity_check is not ok")
        stored = {}
        for message_id, text, count in store.execute("SELECT id, text, count(*) FROM messages GROUP BY id"):
            stored[message_id] = (text, count)
    for message_id, text in acknowledged.items():
        check(message_id in stored, f"acknowledged message {message_id} is missing")
        check(stored[message_id] == (text, 1), f"acknowledged message {message_id} is stored as {stored[message_id]!r}")
    whole_in_doubt = 0
    for message_id, text in in_doubt.items():
        if message_id in stored:
            check(stored[message_id] == (text, 1), f"unacknowledged message {message_id} is not whole: {stored[message_id]!r}")
            whole_in_doubt += 1
    strangers = set(stored) - set(acknowledged) - set(in_doubt)
    check(not strangers, f"messages nobody sent: {sorted(strangers)[:5]}")
    return len(stored), whole_in_doubt


def crash_durability(binary, rounds, writers=8):
    """SIGKILL at random moments under `writers` concurrent writers, `rounds` times on one store."""
    with temporary_directory() as work:
        service = Service(binary, work, "--send-rate-per-user", "0")
        acknowledged, in_doubt = {}, {}
        for round_number in range(rounds):
            service.start()
            # What earlier rounds left must have survived this restart too.
            verify_store(service, acknowledged, in_doubt)
            load = Writers(service, writers, f"r{round_number}").start()
            # The kill comes at a random moment of a load that is under way: after the first
            # acknowledgement (a busy machine can take longer than the shortest pause to give it,
            # just after a restart), and not past 10 s, or the service is not serving at all.
            started = time.monotonic()
            while not load.acknowledged and time.monotonic() - started < 10:
                time.sleep(0.005)
            time.sleep(random.uniform(0.3, 1.2))
            service.signal(signal.SIGKILL)
            service.wait(timeout=10)
            load.stop()
            check(not load.unexpected, f"round {round_number}: unexpected answers {load.unexpected[:5]}")
            check(load.acknowledged, f"round {round_number}: no message was acknowledged within 10 s of the restart")
            acknowledged.update(load.acknowledged)
            in_doubt.update(load.in_doubt)
        service.start()
        total, whole = verify_store(service, acknowledged, in_doubt)
        check(service.alive(), "the service does not answer after the last restart")
        service.stop()
        return (f"{rounds} SIGKILLs under {writers} writers: {len(acknowledged)} acknowledged messages all present once "
                f"with their text, {whole} of {len(in_doubt)} unacknowledged stored whole, {total} rows, integrity ok")


def graceful_shutdown(binary, writers=8, load_seconds=1.5):
    """SIGTERM while `writers` clients send: no 5xx, every acknowledged write kept, exit 0 in 10 s."""
    with temporary_directory() as work:
        service = Service(binary, work, "--send-rate-per-user", "0").start()
        load = Writers(service, writers, "term").start()
        time.sleep(load_seconds)
        signalled = time.monotonic()
        service.signal(signal.SIGTERM)
        try:
            code = service.wait(timeout=10)
        except Exception as error:
            raise Failure(f"bouncer did not exit within 10 s of SIGTERM ({error})")
        took = time.monotonic() - signalled
        load.stop()
        check(code == 0, f"bouncer exited with {code} on SIGTERM")
        server_errors = [entry for entry in load.unexpected if entry[1] >= 500]
        check(not server_errors, f"5xx during shutdown: {server_errors[:5]}")
        check(not load.unexpected, f"unexpected answers during shutdown: {load.unexpected[:5]}")
        check(not service.logged_errors(), f"errors logged: {service.logged_errors()[:3]}")
        service.start()
        total, _ = verify_store(service, load.acknowledged, load.in_doubt)
        service.stop()
        return (f"SIGTERM under {writers} writers: exit 0 after {took * 1000:.0f} ms, no 5xx, "
                f"{len(load.acknowledged)} acknowledged messages all kept ({total} rows)")
