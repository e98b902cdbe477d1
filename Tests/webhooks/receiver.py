#!/usr/bin/env python3
"""A webhook receiver for Bouncer's tests: an HTTP server on loopback that checks every delivery's
signature with the `standardwebhooks` package (the Standard Webhooks reference library, from PyPI)
and writes one JSON line per request to its log:

    {"webhook_id": ..., "type": ..., "verified": true|false, "status": 204, "error"?: ...}

Usage: receiver.py --port N --secret whsec_... --log FILE [--status 204] [--delay SECONDS]

--status is what it answers (a 410 to have the webhook disabled, a 500 to have it retried);
--delay makes it answer slowly. It prints "listening <port>" once it accepts connections, and
runs until it is killed.
"""
import argparse
import http.server
import json
import sys
import threading
import time

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--status", type=int, default=204)
    parser.add_argument("--delay", type=float, default=0)
    options = parser.parse_args()
    verifier = Webhook(options.secret)
    lock = threading.Lock()
    log = open(options.log, "a", buffering=1)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            record = {"webhook_id": self.headers.get("webhook-id"), "status": options.status}
            try:
                event = verifier.verify(body, {name.lower(): value for name, value in self.headers.items()})
                record.update(verified=True, type=event.get("type"), event_id=event.get("id"))
            except (WebhookVerificationError, ValueError) as error:
                record.update(verified=False, error=str(error))
            if options.delay:
                time.sleep(options.delay)
            self.send_response(options.status)
            self.send_header("Content-Length", "0")
            self.end_headers()
            with lock:
                log.write(json.dumps(record) + "\n")

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
    server.daemon_threads = True
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
