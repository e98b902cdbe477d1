"""Slow, idle and too many clients, and a flood of sends: the service keeps serving the rest."""
import http.client
import json
import random
import selectors
import socket
import threading
import time

from harness import Service, check, percentile, raise_open_file_limit, send_message, temporary_directory


def _latencies_of_a_normal_client(service, token, stop, latencies, errors):
    connection = http.client.HTTPConnection("127.0.0.1", service.port, timeout=10)
    number = 0
    while not stop.is_set():
        started = time.perf_counter()
        try:
            status = send_message(connection, token, "messaging:normal", f"normal-{number}", f"an ordinary message {number}")
        except (OSError, http.client.HTTPException) as error:
            errors.append(repr(error))
            connection = http.client.HTTPConnection("127.0.0.1", service.port, timeout=10)
            continue
        latencies.append(time.perf_counter() - started)
        if status != 201:
            errors.append(status)
        number += 1
        time.sleep(0.01)


def _finish_beside_a_normal_client(stop, normal, sockets, latencies, errors, beside, p99_limit_ms):
    """Stops the normal client, closes the abusive sockets, and checks that the normal client was
    served throughout with a p99 under `p99_limit_ms`; returns that p99 in milliseconds."""
    stop.set()
    normal.join()
    for client in sockets:
        client.close()
    check(not errors, f"the normal client failed: {errors[:5]}")
    check(len(latencies) >= 20, f"the normal client got only {len(latencies)} answers")
    p99 = percentile(latencies, 0.99) * 1000
    check(p99 < p99_limit_ms, f"the normal client's p99 was {p99:.1f} ms beside {beside} (limit {p99_limit_ms} ms)")
    return p99


def slow_clients(binary, connections, header_timeout, p99_limit_ms=50):
    """`connections` clients trickle a request head a byte at a time. A normal client beside them
    keeps its p99 under `p99_limit_ms`, and the header timeout closes every trickler."""
    with temporary_directory() as work:
        service = Service(binary, work, "--send-rate-per-user", "0", "--header-timeout", str(header_timeout)).start()
        token = service.token("normal-user")
        head = b"POST /v1/channels/messaging:slow/messages HTTP/1.1\r\nHost: bouncer\r\nX-Trickle: " + b"a" * 4000
        selector = selectors.DefaultSelector()
        sockets = []
        for _ in range(connections):
            client = socket.create_connection(("127.0.0.1", service.port))
            client.setblocking(False)
            sockets.append(client)
            selector.register(client, selectors.EVENT_READ)
        opened = time.monotonic()
        closed_at, answers, sent = {}, {}, 0
        stop = threading.Event()
        latencies, errors = [], []
        normal = threading.Thread(target=_latencies_of_a_normal_client, args=(service, token, stop, latencies, errors))
        normal.start()
        deadline = opened + header_timeout + 5
        while len(closed_at) < connections and time.monotonic() < deadline:
            for client in sockets:
                if client.fileno() in closed_at or client.fileno() < 0:
                    continue
                try:
                    client.send(head[sent % len(head):sent % len(head) + 1])
                except OSError:
                    pass
            sent += 1
            for key, _ in selector.select(timeout=0.1):
                client = key.fileobj
                try:
                    data = client.recv(4096)
                except OSError:
                    data = b""
                answers[client.fileno()] = answers.get(client.fileno(), b"") + data
                if not data or b"\r\n\r\n" in answers[client.fileno()]:
                    closed_at[client.fileno()] = time.monotonic() - opened
                    selector.unregister(client)
        p99 = _finish_beside_a_normal_client(stop, normal, sockets, latencies, errors, f"{connections} slow clients", p99_limit_ms)
        check(len(closed_at) == connections, f"{connections - len(closed_at)} slow clients were still open after {deadline - opened:.0f}s")
        timed_out = sum(1 for answer in answers.values() if answer.startswith(b"HTTP/1.1 408"))
        check(timed_out == connections, f"only {timed_out} of {connections} slow clients were answered 408")
        latest = max(closed_at.values())
        check(latest <= header_timeout + 3, f"a slow client was closed only after {latest:.1f}s (timeout {header_timeout}s)")
        check(service.alive(), "the service does not answer after the slow clients")
        service.stop()
        return (f"{connections} slow clients all answered 408 and closed after {min(closed_at.values()):.1f}-{latest:.1f}s "
                f"(header timeout {header_timeout}s); a normal client beside them: {len(latencies)} sends, "
                f"p50 {percentile(latencies, 0.5) * 1000:.1f} ms, p99 {p99:.1f} ms")


def trickled_bodies(binary, connections, interval=2.0, p99_limit_ms=50):
    """`connections` clients send a complete head, then their 1,000-byte body one byte every
    `interval` seconds: each byte beats the body idle timeout, so only the minimum body rate (1 KiB/s
    after 10 s) ends them. A normal client beside them keeps its p99 under `p99_limit_ms`, and every
    trickler gets 408 and a close well within 60 s."""
    with temporary_directory() as work:
        service = Service(binary, work, "--send-rate-per-user", "0").start()
        token = service.token("normal-user")
        head = (b"POST /v1/channels/messaging:slow/messages HTTP/1.1\r\nHost: bouncer\r\nContent-Type: application/json\r\n"
                b"Authorization: Bearer " + service.token("trickler").encode() + b"\r\nContent-Length: 1000\r\n\r\n")
        sockets = []
        for _ in range(connections):
            client = socket.create_connection(("127.0.0.1", service.port))
            client.sendall(head)
            client.setblocking(False)
            sockets.append(client)
        opened = time.monotonic()
        closed_at, answers = {}, {}
        stop = threading.Event()
        latencies, errors = [], []
        normal = threading.Thread(target=_latencies_of_a_normal_client, args=(service, token, stop, latencies, errors))
        normal.start()
        deadline = opened + 60
        next_byte = opened
        while len(closed_at) < connections and time.monotonic() < deadline:
            if time.monotonic() >= next_byte:
                for client in sockets:
                    if client.fileno() not in closed_at:
                        try:
                            client.send(b"x")
                        except OSError:
                            pass
                next_byte += interval
            for client in sockets:
                if client.fileno() in closed_at:
                    continue
                try:
                    data = client.recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                answers[client.fileno()] = answers.get(client.fileno(), b"") + data
                if not data:
                    closed_at[client.fileno()] = time.monotonic() - opened
            time.sleep(0.05)
        p99 = _finish_beside_a_normal_client(stop, normal, sockets, latencies, errors, f"{connections} trickled bodies", p99_limit_ms)
        check(len(closed_at) == connections, f"{connections - len(closed_at)} tricklers were still open after 60 s")
        timed_out = sum(1 for answer in answers.values() if answer.startswith(b"HTTP/1.1 408") and b"body_too_slow" in answer)
        check(timed_out == connections, f"only {timed_out} of {connections} tricklers were answered 408 body_too_slow")
        latest = max(closed_at.values())
        check(latest < 30, f"a trickler was closed only after {latest:.1f}s")
        check(service.alive(), "the service does not answer after the tricklers")
        service.stop()
        return (f"{connections} trickled bodies all answered 408 and closed after {min(closed_at.values()):.1f}-{latest:.1f}s; "
                f"a normal client beside them: {len(latencies)} sends, p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
                f"p99 {p99:.1f} ms")


def idle_connections(binary, connections, hold_seconds=3):
    """`connections` keep-alive connections, each after one request, held idle: none fails, and
    memory stays bounded."""
    # Both ends need a descriptor per connection: stay within what this machine allows.
    requested = connections
    connections = min(connections, raise_open_file_limit() - 200)
    check(connections >= 500, f"only {connections} descriptors are available; raise the limit (ulimit -n)")
    with temporary_directory() as work:
        service = Service(binary, work, "--max-connections", str(connections + 100), "--idle-timeout", "3600").start()
        before = service.rss_kib()
        request = b"GET /healthz HTTP/1.1\r\nHost: bouncer\r\n\r\n"
        sockets = []
        for _ in range(connections):
            client = socket.create_connection(("127.0.0.1", service.port), timeout=30)
            sockets.append(client)
        for client in sockets:
            client.sendall(request)
        for client in sockets:
            answer = client.recv(4096)
            check(answer.startswith(b"HTTP/1.1 200"), f"an idle-to-be connection got {answer[:40]!r}")
        held = service.rss_kib()
        time.sleep(hold_seconds)
        after_hold = service.rss_kib()
        sample = random.sample(sockets, min(200, len(sockets)))
        for client in sample:
            client.sendall(request)
        for client in sample:
            answer = client.recv(4096)
            check(answer.startswith(b"HTTP/1.1 200"), f"a connection idle for {hold_seconds}s got {answer[:40]!r}")
        check(service.alive(), "the service does not answer beside the idle connections")
        per_connection = (held - before) / connections
        check(per_connection < 64, f"each idle connection costs {per_connection:.1f} KiB")
        for client in sockets:
            client.close()
        service.stop()
        capped = "" if connections == requested else f" (of {requested} asked: the descriptor limit)"
        return (f"{connections} idle keep-alive connections{capped} held {hold_seconds}s, {len(sample)} of them reused without a failure; "
                f"RSS {before / 1024:.1f} MiB before, {held / 1024:.1f} MiB holding them, {after_hold / 1024:.1f} MiB after "
                f"{hold_seconds}s ({per_connection:.1f} KiB a connection)")


def _served(client, timeout):
    client.settimeout(timeout)
    try:
        return client.recv(4096).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def connection_cap(binary, rounds=1, cap=50, extra=20):
    """Past the connection cap the connections in hand keep being served; the ones waiting are
    served once load drops."""
    with temporary_directory() as work:
        service = Service(binary, work, "--max-connections", str(cap)).start()
        request = b"GET /healthz HTTP/1.1\r\nHost: bouncer\r\n\r\n"
        for round_number in range(rounds):
            held = [socket.create_connection(("127.0.0.1", service.port), timeout=5) for _ in range(cap)]
            for client in held:
                client.sendall(request)
                check(_served(client, 5), f"round {round_number}: a connection under the cap was not served")
            waiting = [socket.create_connection(("127.0.0.1", service.port), timeout=5) for _ in range(extra)]
            for client in waiting:
                client.sendall(request)
            time.sleep(0.5)
            for client in held:
                client.sendall(request)
                check(_served(client, 5), f"round {round_number}: a held connection was not served at the cap")
            early = sum(1 for client in waiting if _served(client, 0.05))
            check(early == 0, f"round {round_number}: {early} connections past the cap were served")
            for client in held[:extra + 5]:
                client.close()
            recovered = sum(1 for client in waiting if _served(client, 5))
            check(recovered == extra, f"round {round_number}: only {recovered} of {extra} waiting connections were served after load dropped")
            for client in held[extra + 5:] + waiting:
                client.close()
            time.sleep(0.2)
        check(service.alive(), "the service does not answer after the overload")
        service.stop()
        return (f"{rounds} round(s) at a cap of {cap}: {cap} held connections kept being served, {extra} past the cap waited "
                f"unserved and were all served once {extra + 5} closed")


def send_flood(binary, seconds=3, threads=4):
    """One user sends as fast as they can: the per-user limit answers 429, and only what it lets
    through reaches the store; another user is unaffected."""
    with temporary_directory() as work:
        service = Service(binary, work).start()
        flooder, bystander = service.token("flooder"), service.token("bystander")
        lock = threading.Lock()
        statuses, missing_retry_after = {}, []
        stop = time.monotonic() + seconds

        def flood(index):
            connection = http.client.HTTPConnection("127.0.0.1", service.port, timeout=10)
            number = 0
            while time.monotonic() < stop:
                connection.request("POST", "/v1/channels/messaging:flood/messages",
                                   body=json.dumps({"id": f"flood-{index}-{number}", "text": f"flood {number}"}),
                                   headers={"Authorization": f"Bearer {flooder}", "Content-Type": "application/json"})
                response = connection.getresponse()
                response.read()
                number += 1
                with lock:
                    statuses[response.status] = statuses.get(response.status, 0) + 1
                    if response.status == 429 and not response.getheader("Retry-After"):
                        missing_retry_after.append(number)

        started = time.monotonic()
        workers = [threading.Thread(target=flood, args=(index,)) for index in range(threads)]
        for worker in workers:
            worker.start()
        bystander_connection = http.client.HTTPConnection("127.0.0.1", service.port, timeout=10)
        bystander_statuses = [send_message(bystander_connection, bystander, "messaging:flood", f"calm-{n}", "calm") for n in range(5)]
        for worker in workers:
            worker.join()
        elapsed = time.monotonic() - started
        check(set(statuses) <= {201, 429}, f"the flood got {statuses}")
        check(not missing_retry_after, "a 429 came without Retry-After")
        accepted = statuses.get(201, 0)
        allowed = 20 + 10 * elapsed + 5
        check(accepted <= allowed, f"{accepted} messages got through in {elapsed:.1f}s (limit 10/s, burst 20)")
        check(bystander_statuses == [201] * 5, f"the other user got {bystander_statuses}")
        with service.store() as store:
            stored = store.execute("SELECT count(*) FROM messages WHERE user_id = 'flooder'").fetchone()[0]
        check(stored == accepted, f"{stored} flood messages are stored but {accepted} were accepted")
        service.stop()
        total = sum(statuses.values())
        return (f"{total} sends in {elapsed:.1f}s from one user: {accepted} accepted and stored, "
                f"{statuses.get(429, 0)} refused 429 with Retry-After; another user unaffected")
