"""Malformed and malicious requests, each with the status it must get; after every one the
service must still answer, and still send messages."""
import http.client

from harness import Service, check, raw_exchange, send_message, temporary_directory


def request(method, target, headers=(), body=b"", token=None, content_length=True):
    lines = [f"{method} {target} HTTP/1.1".encode(), b"Host: bouncer"]
    if token:
        lines.append(b"Authorization: Bearer " + token.encode())
    lines += [header if isinstance(header, bytes) else header.encode() for header in headers]
    if body and content_length:
        lines.append(b"Content-Length: " + str(len(body)).encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def post_json(target, body, token="{USER}", extra=()):
    data = body if isinstance(body, bytes) else body.encode()
    return request("POST", target, ["Content-Type: application/json", *extra], data, token)


SEND = "/v1/channels/messaging:hostile/messages"
LONG = "x" * 5001


def corpus():
    """(name, raw request with {USER}/{ADMIN} for tokens, expected status, bytes the answer must not contain)."""
    return [
        # Framing and smuggling (RFC 9112).
        ("no Host", b"GET /healthz HTTP/1.1\r\n\r\n", 400, None),
        ("two Hosts", b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, None),
        ("Content-Length and Transfer-Encoding", request("POST", SEND, ["Content-Length: 4", "Transfer-Encoding: chunked"], b"0\r\n\r\n", "{USER}", False), 400, None),
        ("two different Content-Lengths", request("POST", SEND, ["Content-Length: 2", "Content-Length: 3"], b"{}", "{USER}", False), 400, None),
        ("negative Content-Length", request("POST", SEND, ["Content-Length: -1"], b"", "{USER}", False), 400, None),
        ("Content-Length with a sign", request("POST", SEND, ["Content-Length: +2"], b"{}", "{USER}", False), 400, None),
        ("Content-Length in hex", request("POST", SEND, ["Content-Length: 0x2"], b"{}", "{USER}", False), 400, None),
        ("Content-Length past 64 bits", request("POST", SEND, ["Content-Length: 99999999999999999999999"], b"", "{USER}", False), 400, None),
        ("Content-Length past the body limit", request("POST", SEND, ["Content-Length: 999999999"], b"", "{USER}", False), 413, None),
        ("a coding other than chunked", request("POST", SEND, ["Transfer-Encoding: gzip, chunked"], b"0\r\n\r\n", "{USER}", False), 501, None),
        ("gzip alone: no length", request("POST", SEND, ["Transfer-Encoding: gzip"], b"", "{USER}", False), 400, None),
        ("chunked not last: no length", request("POST", SEND, ["Transfer-Encoding: chunked, gzip"], b"", "{USER}", False), 400, None),
        ("space before the colon", b"GET /healthz HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\n\r\n", 400, None),
        ("obsolete line folding", b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n", 400, None),
        ("bare LF line ends", b"GET /healthz HTTP/1.1\nHost: a\n\n", 400, None),
        ("bare CR in a value", b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-A: b\rc\r\n\r\n", 400, None),
        ("NUL in a value", b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-A: b\x00c\r\n\r\n", 400, None),
        ("NUL in the target", b"GET /heal\x00thz HTTP/1.1\r\nHost: a\r\n\r\n", 400, None),
        ("a field name with a space", b"GET /healthz HTTP/1.1\r\nHost: a\r\nX A: b\r\n\r\n", 400, None),
        ("a field name with a colon only", b"GET /healthz HTTP/1.1\r\nHost: a\r\n: b\r\n\r\n", 400, None),
        ("a chunk size that is not hex", request("POST", SEND, ["Transfer-Encoding: chunked", "Content-Type: application/json"], b"zz\r\n{}\r\n0\r\n\r\n", "{USER}", False), 400, None),
        ("a chunk size past 64 bits", request("POST", SEND, ["Transfer-Encoding: chunked", "Content-Type: application/json"], b"FFFFFFFFFFFFFFFFFFFF\r\n{}\r\n0\r\n\r\n", "{USER}", False), 400, None),
        ("chunks past the body limit", request("POST", SEND, ["Transfer-Encoding: chunked", "Content-Type: application/json"], b"FFFFFFF\r\n", "{USER}", False), 413, None),
        ("HTTP/2.0", b"GET /healthz HTTP/2.0\r\nHost: a\r\n\r\n", 505, None),
        ("HTTP/3.0", b"GET /healthz HTTP/3.0\r\nHost: a\r\n\r\n", 505, None),
        ("no version", b"GET /healthz\r\nHost: a\r\n\r\n", 400, None),
        ("a tab for a space", b"GET\t/healthz HTTP/1.1\r\nHost: a\r\n\r\n", 400, None),
        ("a TLS ClientHello", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40 + b"\r\n\r\n", 400, None),
        ("Expect other than 100-continue", request("POST", SEND, ["Expect: 200-ok", "Content-Type: application/json"], b"{}", "{USER}"), 417, None),
        ("100-continue for a body too large", request("POST", SEND, ["Expect: 100-continue", "Content-Length: 99999999"], b"", "{USER}", False), 413, None),
        # Limits of the head.
        ("a request line of 9 KiB", request("GET", "/healthz?" + "a" * 9000), 414, None),
        ("a header section of 17 KiB", request("GET", "/healthz", ["X-Big: " + "a" * 17000]), 431, None),
        ("101 header fields", request("GET", "/healthz", [f"X-F{n}: v" for n in range(101)]), 431, None),
        ("a 10 KiB token", request("GET", "/v1/me", token="a" * 10000), 401, None),
        # Methods and paths.
        ("an unknown method on a known path", request("BREW", "/healthz"), 405, None),
        ("a lowercase method", request("get", "/healthz"), 405, None),
        ("path traversal", request("GET", "/../../etc/passwd"), 404, b"root:"),
        ("encoded path traversal in an id", request("GET", "/v1/messages/..%2F..%2Fetc%2Fpasswd", token="{USER}"), 404, b"root:"),
        ("a NUL in an id", request("GET", "/v1/messages/%00", token="{USER}"), 404, None),
        ("invalid UTF-8 in an id", request("GET", "/v1/messages/%FF%FE", token="{USER}"), 404, None),
        ("a malformed escape in an id", request("GET", "/v1/messages/%zz", token="{USER}"), 404, None),
        ("an absolute-form target", request("GET", "http://elsewhere.example/healthz"), 200, None),
        ("a traversing channel id", post_json("/v1/channels/..%2Fadmin/messages", '{"text":"hi"}'), 400, None),
        ("a channel id of 65 characters", post_json("/v1/channels/" + "c" * 65 + "/messages", '{"text":"hi"}'), 400, None),
        # Header injection and reflected input.
        ("a request id with markup", request("GET", "/healthz", ["X-Request-Id: <script>alert(1)</script>"]), 200, b"<script>"),
        ("CRLF in a query value", request("GET", "/v1/localization?locale=%0d%0aSet-Cookie:%20x=1", token="{USER}"), 200, b"Set-Cookie"),
        ("CRLF in a path value", request("GET", "/v1/messages/a%0d%0aSet-Cookie:%20x=1", token="{USER}"), 404, b"\r\nSet-Cookie"),
        # Authentication.
        ("no token", request("GET", "/v1/me"), 401, None),
        ("Basic credentials", request("GET", "/v1/me", ["Authorization: Basic YWxpY2U6c2VjcmV0"]), 401, None),
        ("an unsigned token (alg none)", request("GET", "/v1/me", token="eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJ1c2VyX2lkIjoiYWRtaW4iLCJyb2xlIjoiYWRtaW4ifQ."), 401, None),
        ("a user on an admin route", request("GET", "/v1/config", token="{USER}"), 403, None),
        # JSON bodies.
        ("not JSON at all", post_json(SEND, "text=hello"), 400, None),
        ("invalid UTF-8 in JSON", post_json(SEND, b'{"text":"\xff\xfe"}'), 400, None),
        ("a lone surrogate escape", post_json(SEND, '{"text":"\\ud800"}'), 400, None),
        ("JSON nested 1000 deep", post_json(SEND, '{"text":"hi","custom":' + "[" * 1000 + "]" * 1000 + "}"), 400, None),
        ("a number past a double", post_json(SEND, '{"text":"hi","custom":{"n":1e999999}}'), 400, None),
        ("a number of 5000 digits", post_json(SEND, '{"text":"hi","custom":{"n":' + "9" * 5000 + "}}"), 400, None),
        ("text as a number", post_json(SEND, '{"text":5}'), 400, None),
        ("text as null", post_json(SEND, '{"text":null}'), 400, None),
        ("text as a list", post_json(SEND, '{"text":["a"]}'), 400, None),
        ("a JSON list for a body", post_json(SEND, "[]"), 400, None),
        ("a JSON string for a body", post_json(SEND, '"hello"'), 400, None),
        ("an empty body", request("POST", SEND, ["Content-Type: application/json"], b"", "{USER}"), 400, None),
        ("a duplicated key", post_json(SEND, '{"text":"hi","text":"ho"}'), 400, None),
        ("trailing bytes after the JSON", post_json(SEND, '{"text":"hi"} trailing'), 400, None),
        ("a form body", request("POST", SEND, ["Content-Type: application/x-www-form-urlencoded"], b"text=hi", "{USER}"), 415, None),
        ("an unknown field is ignored", post_json(SEND, '{"text":"hello there","unknown":{"a":1}}'), 201, None),
        # Oversized or malformed strings, field by field.
        ("text of 5001 characters", post_json(SEND, '{"text":"' + LONG + '"}'), 400, None),
        ("blank text", post_json(SEND, '{"text":" \\u200b\\t "}'), 400, None),
        ("an id of 101 characters", post_json(SEND, '{"id":"' + "i" * 101 + '","text":"hi"}'), 400, None),
        ("an id with a slash", post_json(SEND, '{"id":"../x","text":"hi"}'), 400, None),
        ("a parent id of 101 characters", post_json(SEND, '{"parent_id":"' + "p" * 101 + '","text":"hi"}'), 400, None),
        ("custom of 6 KiB", post_json(SEND, '{"text":"hi","custom":{"a":"' + "c" * 6000 + '"}}'), 400, None),
        ("custom as a list", post_json(SEND, '{"text":"hi","custom":[1]}'), 400, None),
        ("a flag reason of 10 KiB", post_json("/v1/messages/nothing/flag", '{"reason":"' + "r" * 10000 + '"}'), 400, None),
        ("a rule pattern of 513 characters", post_json("/v1/rules", '{"kind":"word","pattern":"' + "p" * 513 + '","action":"flag"}', "{ADMIN}"), 422, None),
        ("a rule name of 201 characters", post_json("/v1/rules", '{"kind":"word","pattern":"p","action":"flag","name":"' + "n" * 201 + '"}', "{ADMIN}"), 400, None),
        ("a regex that vectorscan refuses", post_json("/v1/rules", '{"kind":"regex","pattern":"(a","action":"flag"}', "{ADMIN}"), 422, None),
        ("a ban reason of 501 characters", post_json("/v1/users/someone/ban", '{"reason":"' + "b" * 501 + '"}', "{ADMIN}"), 400, None),
        ("a user id of 256 characters (one past Matrix's 255)", post_json("/v1/users/" + "u" * 256 + "/ban", "{}", "{ADMIN}"), 400, None),
        ("a locale tag of 36 characters", request("GET", "/v1/localization/" + "abcdefgh-" * 4, token="{USER}"), 400, None),
        ("a limit of 201", request("GET", "/v1/channels/messaging:hostile/messages?limit=201", token="{USER}"), 400, None),
        ("a negative limit", request("GET", "/v1/channels/messaging:hostile/messages?limit=-1", token="{USER}"), 400, None),
        ("a limit that is not a number", request("GET", "/v1/channels/messaging:hostile/messages?limit=ten", token="{USER}"), 400, None),
        ("a cursor of 600 characters", request("GET", "/v1/channels/messaging:hostile/messages?cursor=" + "A" * 600, token="{USER}"), 400, None),
        ("a forged cursor", request("GET", "/v1/channels/messaging:hostile/messages?cursor=bm90LWEtbnVtYmVy", token="{USER}"), 400, None),
        ("a setting that does not exist", request("PATCH", "/v1/config", ["Content-Type: application/json"], b'{"root":true}', "{ADMIN}"), 400, None),
        ("a setting of the wrong type", request("PATCH", "/v1/config", ["Content-Type: application/json"], b'{"max_message_length":"big"}', "{ADMIN}"), 400, None),
        ("a .strings body that never ends", request("PUT", "/v1/localization/fr", ["Content-Type: text/plain"], b'"message.moderation.alert.title" = "Vraiment', "{ADMIN}"), 400, None),
    ]


def run_corpus(binary, repeat=1):
    with temporary_directory() as work:
        service = Service(binary, work, "--send-rate-per-user", "0").start()
        tokens = {b"{USER}": service.token("hostile-user").encode(), b"{ADMIN}": service.token("hostile-admin", "admin").encode()}
        entries = corpus()
        check(len(entries) >= 60, f"the corpus has only {len(entries)} requests")
        mismatches = []
        connection = http.client.HTTPConnection("127.0.0.1", service.port, timeout=10)
        sent = 0
        for _ in range(repeat):
            for name, data, expected, forbidden in entries:
                for placeholder, token in tokens.items():
                    data = data.replace(placeholder, token)
                status, answer, _ = raw_exchange(service.port, data, timeout=5,
                                                 pause_after=lambda received: _complete(received))
                if status != expected:
                    mismatches.append(f"{name}: expected {expected}, got {status} {answer[:160]!r}")
                if forbidden and forbidden in answer:
                    mismatches.append(f"{name}: the answer contains {forbidden!r}")
                check(service.alive(), f"the service stopped answering after: {name}")
                sent += 1
                status = send_message(connection, tokens[b"{USER}"].decode(), "messaging:hostile", f"after-{sent}", f"still here {sent}")
                if status != 201:
                    mismatches.append(f"after {name}: a normal message got {status}")
        check(not mismatches, f"{len(mismatches)} of {len(entries)} answers were wrong:\n      " + "\n      ".join(mismatches))
        check(not service.logged_errors(), f"errors logged: {service.logged_errors()[:3]}")
        service.stop()
        return f"{len(entries)} hostile requests x{repeat}, each answered as expected; the service sent a normal message after every one"


def _complete(received):
    """Whether `received` holds a whole response (head and Content-Length body)."""
    head_end = received.find(b"\r\n\r\n")
    if head_end < 0:
        return False
    head = received[:head_end].lower()
    length = 0
    for line in head.split(b"\r\n"):
        if line.startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return len(received) >= head_end + 4 + length
