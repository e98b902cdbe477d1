#!/usr/bin/env python3
"""bouncer-chat, the terminal chat client built on BouncerKit, driven in a real terminal (tmux)
against the real binary on a fresh store.

    python3 Tests/chat/run.py --binary .build/debug/bouncer --chat .build/debug/bouncer-chat

It types into the client with `tmux send-keys` and reads the screen with `capture-pane`: a clean
message is delivered, a bounced one shows its alert and Send Anyway delivers it, another user's
message arriving live is shown, and a message is flagged after the server's confirmation text.
Each step is checked on the screen and through the API. It exits non-zero on failure (printing
the screen and the service's log), and stops the service and the tmux session it started."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "dashboard"))
from harness import Bouncer  # noqa: E402  (Tests/dashboard/harness.py: the service, started and stopped)
CHANNEL = "messaging:general"


class Failure(Exception):
    pass


def call(service, method, path, token, body=None):
    """A JSON call: its status and body."""
    request = urllib.request.Request(service.base_url + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read().decode() or "null")


class Terminal:
    """A tmux session of its own running one command, read and typed into from outside."""

    def __init__(self, command, directory):
        self.name = f"bouncer-chat-test-{os.getpid()}"
        self.socket = os.path.join(directory, "tmux.sock")
        self.tmux("new-session", "-d", "-s", self.name, "-x", "160", "-y", "50", command)

    def tmux(self, *arguments):
        return subprocess.run(["tmux", "-S", self.socket, *arguments], check=True, capture_output=True, text=True).stdout

    def screen(self):
        return self.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", self.name)

    def type(self, text):
        self.tmux("send-keys", "-t", self.name, "-l", text)
        self.tmux("send-keys", "-t", self.name, "Enter")

    def wait_for(self, pattern, what, timeout=15):
        """Waits until the screen matches PATTERN (a regular expression); returns the match."""
        deadline = time.monotonic() + timeout
        while True:
            match = re.search(pattern, self.screen(), re.MULTILINE)
            if match:
                return match
            if time.monotonic() > deadline:
                raise Failure(f"the screen never showed {what} ({pattern!r})")
            time.sleep(0.05)

    def running(self):
        return subprocess.run(["tmux", "-S", self.socket, "has-session", "-t", self.name], capture_output=True).returncode == 0

    def stop(self):
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True)


def wait_until(condition, what, timeout=10):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise Failure(f"never true: {what}")
        time.sleep(0.05)


def scenario(service, terminal, tokens):
    def channel(user):
        status, page = call(service, "GET", f"/v1/channels/{CHANNEL}/messages?limit=200", tokens[user])
        assert status == 200, (status, page)
        return page["messages"]

    # The channel's recent messages are shown, numbered.
    bob_line = terminal.wait_for(r"^#(\d+) bob: hello from bob$", "bob's earlier message")
    bob_number = bob_line.group(1)

    # A clean message is delivered.
    terminal.type("hello everyone")
    terminal.wait_for(r"^#\d+ alice: hello everyone$", "alice's clean message")
    sent = [m for m in channel("bob") if m["text"] == "hello everyone"]
    if len(sent) != 1 or sent[0]["state"] != "delivered":
        raise Failure(f"the clean message as bob sees it: {sent}")

    # A bounced one shows its alert as a numbered choice; Send Anyway delivers it.
    terminal.type("a pear for you")
    terminal.wait_for(r"^#(\d+) alice: a pear for you \(bounced\)$", "the bounced message")
    terminal.wait_for(r"^! Message was bounced$", "the notice")
    terminal.wait_for(r"^Are you sure\?$", "the alert's title")
    terminal.wait_for(r"^  1\) Send Anyway\n  2\) Edit Message\n  3\) Delete Message\nChoose 1-3: $", "the alert's choices")
    if any(m["text"] == "a pear for you" for m in channel("bob")):
        raise Failure("bob saw the bounced message before Send Anyway")
    terminal.type("1")
    terminal.wait_for(r"^#\d+ alice: a pear for you$", "the message delivered by Send Anyway")
    resent = [m for m in channel("bob") if m["text"] == "a pear for you"]
    if len(resent) != 1 or resent[0]["state"] != "delivered":
        raise Failure(f"after Send Anyway, bob sees: {resent}")

    # Another user's message arrives live.
    status, _ = call(service, "POST", f"/v1/channels/{CHANNEL}/messages", tokens["bob"], {"id": "bob-live", "text": "live from bob"})
    assert status == 201, status
    terminal.wait_for(r"^#\d+ bob: live from bob$", "bob's live message")

    # Flagging asks with the server's confirmation text first.
    terminal.type(f"/flag {bob_number} spam")
    terminal.wait_for(r"^Do you want to send a copy of this message to a moderator for further investigation\?\nFlag\? \(y/n\) $",
                      "the flag's confirmation")
    terminal.type("y")
    terminal.wait_for(rf"^Flagged #{bob_number} \(spam\)\.$", "the flag filed")
    status, flags = call(service, "GET", "/v1/flags?reporter_id=alice", tokens["mod"])
    assert status == 200, (status, flags)
    filed = [(f["message_id"], f["reason"], f["state"]) for f in flags["flags"]]
    if filed != [("bob-1", "spam", "open")]:
        raise Failure(f"alice's flags: {filed}")

    terminal.type("/quit")
    wait_until(lambda: not terminal.running(), "bouncer-chat ends on /quit (its session closes)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/bouncer"), help="the bouncer binary")
    parser.add_argument("--chat", default=os.path.join(ROOT, ".build/debug/bouncer-chat"), help="the bouncer-chat binary")
    arguments = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is needed: apt-get install tmux", file=sys.stderr)
        return 1
    directory = tempfile.mkdtemp(prefix="bouncer-chat-test-")
    service = terminal = None
    try:
        service = Bouncer(os.path.abspath(arguments.binary), "--send-rate-per-user", "0").start()
        tokens = {user: service.token(user, role) for user, role in [("alice", "user"), ("bob", "user"), ("mod", "moderator"),
                                                                      ("root", "admin")]}
        status, _ = call(service, "POST", "/v1/rules", tokens["root"], {"kind": "word", "pattern": "pear", "action": "bounce_flag"})
        assert status == 201, status
        status, _ = call(service, "POST", f"/v1/channels/{CHANNEL}/messages", tokens["bob"], {"id": "bob-1", "text": "hello from bob"})
        assert status == 201, status
        command = " ".join([os.path.abspath(arguments.chat), "--url", service.base_url, "--token", tokens["alice"],
                            "--channel", CHANNEL, "--locale", "en", "--poll", "0.2"])
        terminal = Terminal(command, directory)
        scenario(service, terminal, tokens)
        print("bouncer-chat: sent, bounced and sent anyway, received live, flagged: ok")
        return 0
    except (Failure, AssertionError, RuntimeError, subprocess.CalledProcessError) as error:
        print(f"FAILED: {error}", file=sys.stderr)
        if terminal:
            try:
                print("--- the screen\n" + terminal.screen(), file=sys.stderr)
            except subprocess.CalledProcessError:
                pass
        if service:
            print("--- the service's log (last lines)\n" + service.log_tail(20), file=sys.stderr)
        return 1
    finally:
        if terminal:
            terminal.stop()
        if service:
            service.stop()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
