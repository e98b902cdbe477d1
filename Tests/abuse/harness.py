"""What the abuse tests share: the real `bouncer` binary on a fresh store, tokens, plain HTTP
clients on loopback, and a read-only look into the SQLite store. Python's standard library only."""
import http.client
import json
import os
import resource
import signal
import socket
import sqlite3
import subprocess
import tempfile
import time


class Failure(AssertionError):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def raise_open_file_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Service:
    """One `bouncer serve` process. The data directory outlives restarts, so a test can kill the
    process and start it again on the same store."""

    # Every service started and not yet stopped, so that a test that fails half way leaves no
    # process behind (see `stop_all`).
    started = set()

    def __init__(self, binary, work, *args):
        self.binary = binary
        self.work = work
        self.data = os.path.join(work, "data")
        self.args = list(args)
        self.process = None
        self.port = None
        self.starts = 0

    def start(self, timeout=60):
        self.port = free_port()
        self.starts += 1
        log = open(os.path.join(self.work, f"service-{self.starts}.log"), "wb")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.port), "--data-dir", self.data, "--log-level", "warn", *self.args],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()
        Service.started.add(self)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            check(self.process.poll() is None, f"bouncer exited at start with {self.process.returncode}: {self.log_tail()}")
            try:
                status, _ = self.request("GET", "/readyz", timeout=1)
                if status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.05)
        raise Failure(f"bouncer was not ready within {timeout}s: {self.log_tail()}")

    def log_tail(self, lines=20):
        path = os.path.join(self.work, f"service-{self.starts}.log")
        try:
            with open(path, "rb") as log:
                return b"\n".join(log.read().splitlines()[-lines:]).decode(errors="replace")
        except OSError:
            return ""

    def logged_errors(self):
        path = os.path.join(self.work, f"service-{self.starts}.log")
        with open(path, "rb") as log:
            return [line for line in log.read().splitlines() if b'"level":"error"' in line]

    def token(self, user, role="user"):
        return subprocess.check_output(
            [self.binary, "token", "--user", user, "--role", role, "--ttl", "86400", "--data-dir", self.data]).decode().strip()

    def request(self, method, path, body=None, token=None, timeout=10, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            sent = dict(headers or {})
            if token:
                sent["Authorization"] = f"Bearer {token}"
            if body is not None:
                sent["Content-Type"] = "application/json"
                body = json.dumps(body)
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def alive(self):
        try:
            return self.process.poll() is None and self.request("GET", "/healthz", timeout=5)[0] == 200
        except OSError:
            return False

    def signal(self, number):
        self.process.send_signal(number)

    def wait(self, timeout):
        return self.process.wait(timeout=timeout)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        Service.started.discard(self)

    @classmethod
    def stop_all(cls):
        """Stops whatever a test left running (it failed before its own `stop`)."""
        for service in list(cls.started):
            service.stop()

    def rss_kib(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def store(self):
        """A read-only connection to the store; safe beside the running service (WAL)."""
        path = os.path.join(self.data, "bouncer.sqlite3")
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)


def temporary_directory():
    return tempfile.TemporaryDirectory(prefix="bouncer-abuse-")


def send_message(connection, token, channel, message_id, text):
    """POSTs one message on a keep-alive `http.client` connection; returns the status."""
    connection.request("POST", f"/v1/channels/{channel}/messages", body=json.dumps({"id": message_id, "text": text}),
                       headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    return response.status


def raw_exchange(port, data, timeout=5.0, pause_after=None):
    """Sends raw bytes and reads until the server closes or `timeout` passes. Returns
    (status or None, everything read, whether the server closed the connection)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        try:
            connection.sendall(data)
        except OSError:
            pass
        received = b""
        closed = False
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            connection.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = connection.recv(65536)
            except socket.timeout:
                break
            except OSError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            received += chunk
            if pause_after and pause_after(received):
                break
    status = None
    if received.startswith(b"HTTP/1."):
        try:
            status = int(received.split(b" ", 2)[1])
        except (IndexError, ValueError):
            pass
    return status, received, closed


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]
