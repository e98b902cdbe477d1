#!/usr/bin/env python3
"""Other requests while dry runs are asked for at once (issue: one token's dry runs held every
request up). Starts BINARY on a fresh store with 2,000 messages, then sends four dry runs at once,
each with a hundred regex candidates, while one client calls GET /v1/me back to back; prints that
client's p50, p99 and slowest, and what each dry run was answered. Stops by itself.

    python3 scripts/bench-dry-run-contention.py --binary .build/release/bouncer [--rounds 3]
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

PORT = 18097


def call(method, path, token, body=None, timeout=180):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{PORT}{path}", data=data, method=method,
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def token(binary, data, user, role):
    return subprocess.run([binary, "token", "--user", user, "--role", role, "--data-dir", data, "--ttl", "3600"],
                          check=True, capture_output=True, text=True).stdout.strip()


def one_round(binary):
    work = tempfile.mkdtemp(prefix="bouncer-dry-run-contention.")
    data = os.path.join(work, "data")
    server = subprocess.Popen([binary, "serve", "--port", str(PORT), "--data-dir", data, "--send-rate-per-user", "0",
                               "--log-level", "warn"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{PORT}/readyz", timeout=1)
                break
            except Exception:
                time.sleep(0.1)
        user, moderator = token(binary, data, "author", "user"), token(binary, data, "mod", "moderator")
        for index in range(2000):
            call("POST", "/v1/channels/general/messages", user, {"text": f"message number {index} with words"})
        candidates = [{"kind": "regex", "pattern": f"\\w{{1,60}}word{index}\\d{{2,40}}[a-z]{{3,30}}x", "action": "flag"}
                      for index in range(100)]
        answers = []
        threads = [threading.Thread(target=lambda: answers.append(
            call("POST", "/v1/rules/dry-run", moderator, {"rules": candidates, "limit": 2000})[0])) for _ in range(4)]
        latencies = []
        started = time.monotonic()
        for thread in threads:
            thread.start()
        while any(thread.is_alive() for thread in threads) and time.monotonic() - started < 120:
            before = time.monotonic()
            status, _ = call("GET", "/v1/me", user, timeout=120)
            latencies.append((before - started, time.monotonic() - before))
            assert status == 200, status
        for thread in threads:
            thread.join()
        # The first 5 s: while the four requests are taken in (checked, compiled, refused).
        early = sorted(latency for at, latency in latencies if at < 5)
        every = sorted(latency for _, latency in latencies)
        pick = lambda values, q: values[min(len(values) - 1, int(q * len(values)))] * 1000
        print(f"{binary}: GET /v1/me while 4 dry runs of 100 regexes were asked for: first 5 s {len(early)} calls, "
              f"p50 {pick(early, 0.5):.1f} ms, p99 {pick(early, 0.99):.1f} ms; all {len(every)} calls, p99 {pick(every, 0.99):.1f} ms, "
              f"slowest {every[-1] * 1000:.1f} ms; dry runs answered {sorted(answers)} in {time.monotonic() - started:.1f} s")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", action="append", required=True, help="a binary to measure (may be given twice)")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    for _ in range(args.rounds):
        for binary in args.binary:
            one_round(binary)


if __name__ == "__main__":
    main()
