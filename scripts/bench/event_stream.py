#!/usr/bin/env python3
"""Event stream load: SUBSCRIBERS clients hold GET /v1/events/stream open while senders commit
RATE bounced messages a second (each an event) for SECONDS. Every subscriber's events are counted
(the `event:` lines); a sample of them is parsed for the time from each event's `created_at`
(stamped as its transaction is made, a few milliseconds before the commit) to its arrival.
Prints what was sent, the fewest and most events a subscriber got, the latency percentiles of
the sample, and the server's resident memory.

Usage: event_stream.py PORT TOKENS_FILE SERVER_PID SUBSCRIBERS RATE SECONDS
"""
import datetime
import http.client
import json
import selectors
import socket
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
    tokens = [line.strip() for line in open(tokens_file) if line.strip()]
    moderator, senders = tokens[0], tokens[1:]
    rss_before = rss_kib(server_pid)

    selector = selectors.DefaultSelector()
    counts = [0] * subscribers
    tails = [b""] * subscribers
    sampled = set(range(0, subscribers, max(1, subscribers // 20)))
    pending = {index: b"" for index in sampled}
    latencies = []
    request = (f"GET /v1/events/stream HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {moderator}\r\n"
               "Accept: text/event-stream\r\n\r\n").encode()
    for index in range(subscribers):
        connection = socket.create_connection(("127.0.0.1", port))
        connection.sendall(request)
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_READ, index)

    def receive(timeout):
        for key, _ in selector.select(timeout):
            index = key.data
            try:
                chunk = key.fileobj.recv(262144)
            except BlockingIOError:
                continue
            if not chunk:
                selector.unregister(key.fileobj)
                print(f"subscriber {index} was closed by the server", file=sys.stderr)
                continue
            joined = tails[index] + chunk
            counts[index] += joined.count(b"\nevent: ") - tails[index].count(b"\nevent: ")
            tails[index] = joined[-16:]
            if index in sampled:
                now = time.time()
                text = pending[index] + chunk
                *events, pending[index] = text.split(b"\n\n")
                for event in events:
                    start = event.find(b'"created_at":"')
                    if b"\nevent: " not in b"\n" + event or start < 0:
                        continue
                    stamp = event[start + 14:start + 38].decode()
                    created = datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
                    latencies.append(now - created.timestamp())

    # Every stream open before the first event.
    settle = time.time() + 5
    while time.time() < settle:
        receive(0.1)
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
    while any(thread.is_alive() for thread in threads):
        receive(0.05)
    # The last events on their way.
    drain = time.time() + 10
    while time.time() < drain and min(counts) < sent[0]:
        receive(0.1)
    rss_peak = rss_kib(server_pid, "VmHWM")

    latencies.sort()
    def percentile(p):
        return latencies[min(len(latencies) - 1, int(len(latencies) * p))] * 1000 if latencies else float("nan")
    print(f"events committed: {sent[0]} in {seconds:.0f} s ({sent[0] / seconds:.0f}/s, asked {rate}/s)")
    print(f"subscribers: {subscribers}; events a subscriber got: fewest {min(counts)}, most {max(counts)}"
          f" ({sum(1 for c in counts if c >= sent[0])} got every one)")
    print(f"commit to delivery ({len(sampled)} subscribers sampled, {len(latencies)} events):"
          f" p50 {percentile(0.5):.1f} ms, p99 {percentile(0.99):.1f} ms, max {percentile(1.0):.1f} ms")
    print(f"server RSS: {rss_before / 1024:.0f} MiB before, {rss_open / 1024:.0f} MiB with the streams open,"
          f" peak {rss_peak / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
