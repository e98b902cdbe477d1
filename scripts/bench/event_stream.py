#!/usr/bin/env python3
"""Event stream load: SUBSCRIBERS clients hold GET /v1/events/stream open while senders commit
RATE bounced messages a second (each an event) for SECONDS. The subscribers are READER (built
from event_stream_reader.c): it counts every subscriber's events and times, for a sample of them,
each event from its `created_at` (stamped as its transaction is made, a few milliseconds before
the commit) to its arrival. Prints what was sent, the fewest and most events a subscriber got,
the latency percentiles of the sample, and the server's resident memory.

Usage: event_stream.py PORT TOKENS_FILE SERVER_PID SUBSCRIBERS RATE SECONDS READER WORK_DIR
"""
import http.client
import json
import os
import subprocess
import sys
import threading
import time


def rss_kib(pid, field="VmRSS"):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def main():
    port, tokens_file, server_pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    subscribers, rate, seconds = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
    reader_binary, work = sys.argv[7], sys.argv[8]
    tokens = [line.strip() for line in open(tokens_file) if line.strip()]
    moderator, senders = tokens[0], tokens[1:]
    rss_before = rss_kib(server_pid)

    # The subscribers: a compiled reader (event_stream_reader.c), so that reading 1,000 streams
    # costs the shared cores far less than the server being measured.
    ready, expected = f"{work}/ready", f"{work}/expected"
    reader = subprocess.Popen([reader_binary, str(port), moderator, str(subscribers), ready, expected], stdout=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while not os.path.exists(ready):
        if time.time() > deadline or reader.poll() is not None:
            sys.exit("the subscribers did not all get their stream's head")
        time.sleep(0.05)
    time.sleep(1)
    rss_open = rss_kib(server_pid)

    sent = [0]
    stop = time.time() + seconds

    def send(share, token_offset):
        connection = http.client.HTTPConnection("127.0.0.1", port)
        interval = 1.0 / share
        next_time = time.time()
        number = 0
        while time.time() < stop:
            token = senders[(token_offset + number) % len(senders)]
            connection.request("POST", "/v1/channels/messaging:bench/messages", body=json.dumps({"text": f"a pear {number}"}),
                               headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            if response.status == 201:
                sent[0] += 1
            number += 1
            next_time += interval
            delay = next_time - time.time()
            if delay > 0:
                time.sleep(delay)

    threads = [threading.Thread(target=send, args=(rate / 8, index * 1000)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with open(expected + ".partial", "w") as file:
        file.write(str(sent[0]))
    os.rename(expected + ".partial", expected)
    output, _ = reader.communicate(timeout=120)
    rss_peak = rss_kib(server_pid, "VmHWM")
    values = dict(line.split(" ", 1) for line in output.strip().splitlines())
    fewest, most, complete = values["counts"].split()
    p50, p99, slowest, samples = values["latency_ms"].split()
    print(f"events committed: {sent[0]} in {seconds:.0f} s ({sent[0] / seconds:.0f}/s, asked {rate}/s)")
    print(f"subscribers: {subscribers}; events a subscriber got: fewest {fewest}, most {most} ({complete} got every one)")
    print(f"commit to delivery (a sample of the subscribers, {samples} events): p50 {p50} ms, p99 {p99} ms, max {slowest} ms")
    print(f"server RSS: {rss_before / 1024:.0f} MiB before, {rss_open / 1024:.0f} MiB with the streams open,"
          f" peak {rss_peak / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
