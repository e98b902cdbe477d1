"""Bouncer as the moderation service of chat servers that already exist: a real Synapse with the
synapse-http-antispam module, driven as Matrix users through matrix-nio; Stream's Before Message
Send hook, with bodies shaped as Stream documents them, signed by Python's own hmac. Every wait is
for a condition, with a generous deadline, and says what it waited for when it runs out."""
import asyncio
import hashlib
import hmac
import json
import os
import time
import unittest
from urllib.parse import quote

import harness  # Tests/dashboard/harness.py: the service and a JSON client
import synapse

BINARY = os.environ.get("BOUNCER_BINARY", ".build/debug/bouncer")
ARTIFACTS = os.environ.get("BOUNCER_INTEGRATION_ARTIFACTS")


def wait_for(what, condition, timeout=30.0, interval=0.2):
    """Polls CONDITION until it returns something true; fails naming WHAT when TIMEOUT passes."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = condition()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"waited {timeout:.0f}s for {what}; last seen: {last!r}")


def stored_copy(api, token, message_id):
    """A message as moderators read it, once its copy is committed: a clean message is answered
    before that."""
    path = f"/v1/messages/{quote(message_id, safe='')}"

    def fetch():
        answer = api.call("GET", path, token=token, expect=(200, 404))
        return answer if answer.get("id") == message_id else None
    return wait_for(f"the copy of {message_id} to be committed", fetch)


def localized(api, token, key, locale):
    return api.call("GET", f"/v1/localization?keys={key}&locale={locale}", token=token)["strings"][key]


# ---------------------------------------------------------------------------------------------
# Stream


STREAM_KEY = "stream-app-key"
STREAM_SECRET = "stream-app-secret"


def stream_body(text, user="u-1", language=None, message_id=""):
    """A hook request shaped as Stream's documentation shows it, `request_info` included."""
    user_object = {"id": user, "role": "user", "banned": False, "online": False}
    if language:
        user_object["language"] = language
    return {
        "message": {"id": message_id, "text": text, "html": "", "type": "regular", "attachments": [], "latest_reactions": [],
                    "own_reactions": [], "reaction_counts": None, "reaction_scores": None, "reply_count": 0, "mentioned_users": [],
                    "silent": False, "custom_field": {"order": 12345678901234567890}},
        "user": user_object,
        "channel": {"cid": "messaging:fun-01", "id": "fun-01", "type": "messaging", "frozen": False,
                    "config": {"name": "messaging", "max_message_length": 5000, "automod": "disabled", "commands": []}},
        "request_info": {"type": "client", "ip": "86.84.2.2", "user_agent": "Mozilla/5.0", "sdk": "stream-chat-swift-4.0.0"},
    }


class StreamHookTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.service = harness.Bouncer(BINARY, "--stream-api-key", STREAM_KEY, "--stream-api-secret", STREAM_SECRET,
                                      "--matrix-secret", "matrix-secret", "--send-rate-per-user", "0").start()
        cls.api = harness.Api(cls.service.port)
        cls.admin = cls.service.token("root", "admin")
        cls.moderator = cls.service.token("mod", "moderator")
        for pattern, action in [("darn", "bounce"), ("kiwi", "flag"), ("heck", "mask_flag"), ("plumbus", "remove"), ("fig", "shadow")]:
            cls.api.call("POST", "/v1/rules", {"kind": "word", "pattern": pattern, "action": action}, token=cls.admin)

    @classmethod
    def tearDownClass(cls):
        cls.service.stop(keep_log_in=ARTIFACTS)

    def hook(self, body, signature=None, raw=None, api_key=STREAM_KEY, expect=(200,)):
        data = raw if raw is not None else json.dumps(body).encode()
        headers = {"X-Signature": signature if signature is not None else hmac.new(STREAM_SECRET.encode(), data, hashlib.sha256).hexdigest()}
        if api_key:
            headers["X-Api-Key"] = api_key
        try:
            status, content_type, answer = self.api._exchange("POST", "/v1/integrations/stream/before-message-send", data,
                                                              {"Content-Type": "application/json", **headers})
        except (BrokenPipeError, ConnectionResetError):
            # As in MatrixBadInputTests: the service answers 413 from the head and closes, and a
            # client still sending 2 MB on a busy machine may meet the close before the answer.
            self.assertEqual(expect, (413,), "only a body too large is cut off")
            return 413, None
        self.assertIn(status, expect, answer[:300])
        return status, json.loads(answer) if answer else None

    def stored(self, message_id):
        return self.api.call("GET", f"/v1/messages/{message_id}", token=self.moderator, expect=(200, 404))

    def test_a_clean_message_comes_back_as_it_came(self):
        body = stream_body("hello there", message_id="s-clean")
        _, answer = self.hook(body)
        self.assertEqual(answer, {"message": body["message"]})
        stored = stored_copy(self.api, self.moderator, "s-clean")
        self.assertEqual((stored["user_id"], stored["channel_id"]), ("u-1", "messaging:fun-01"))

    def test_a_flagged_message_comes_back_unchanged_and_waits_in_the_queue(self):
        body = stream_body("a kiwi for you", message_id="s-flag")
        self.assertEqual(self.hook(body)[1], {"message": body["message"]})
        queue = self.api.call("GET", "/v1/review-queue", token=self.moderator)["items"]
        self.assertIn("s-flag", [item["message"]["id"] for item in queue])

    def test_a_masked_message_has_only_its_text_changed(self):
        body = stream_body("what the heck", message_id="s-mask")
        message = self.hook(body)[1]["message"]
        self.assertNotIn("heck", message["text"])
        self.assertEqual({k: v for k, v in message.items() if k != "text"}, {k: v for k, v in body["message"].items() if k != "text"})

    def test_refusals_are_errors_in_the_users_language(self):
        german = localized(self.api, self.admin, "message.moderation.alert.message", "de")
        self.assertNotIn("Consider", german)
        for text, message_id in [("oh darn", "s-bounce"), ("a plumbus", "s-remove"), ("a fig", "s-shadow")]:
            with self.subTest(text=text):
                message = self.hook(stream_body(text, language="de", message_id=message_id))[1]["message"]
                self.assertEqual(message["type"], "error")
                self.assertIn(german, message["text"])
                self.assertEqual(message["attachments"], [])
        english = self.hook(stream_body("darn it", language="xx-unknown"))[1]["message"]
        self.assertIn("Consider how your comment", english["text"])

    def test_a_banned_user_gets_an_error(self):
        self.api.call("POST", "/v1/users/u-banned/ban", {"reason": "spam"}, token=self.moderator)
        message = self.hook(stream_body("hello", user="u-banned", message_id="s-banned"))[1]["message"]
        self.assertEqual(message["type"], "error")
        self.assertEqual(message["text"], "You are banned from sending messages.")
        self.assertEqual(self.stored("s-banned")["code"], "message_not_found")

    def test_bad_signatures_keys_and_bodies_are_refused_and_nothing_is_stored(self):
        body = stream_body("hello", message_id="s-forged")
        data = json.dumps(body).encode()
        signature = hmac.new(STREAM_SECRET.encode(), data, hashlib.sha256).hexdigest()
        changed = data.replace(b"hello", b"HELLO")
        self.hook(None, raw=changed, signature=signature, expect=(401,))
        self.hook(None, raw=data, signature=hmac.new(b"another secret", data, hashlib.sha256).hexdigest(), expect=(401,))
        self.hook(body, api_key="another key", expect=(401,))
        self.hook(None, raw=data, signature="", expect=(401,))
        self.assertEqual(self.stored("s-forged")["code"], "message_not_found")
        self.hook(None, raw=b"{not json", expect=(400,))
        self.hook({"message": {"text": "no user", "id": "s-nouser"}, "channel": {"cid": "messaging:x"}}, expect=(400,))
        self.hook({"user": {"id": "u-1"}, "channel": {"cid": "messaging:x"}}, expect=(400,))
        self.assertEqual(self.stored("s-nouser")["code"], "message_not_found")
        huge = stream_body("x" * (2 * 1024 * 1024), message_id="s-huge")
        self.hook(huge, expect=(413,))
        self.assertEqual(self.stored("s-huge")["code"], "message_not_found")
        # The service goes on.
        self.assertEqual(self.hook(stream_body("still here"))[0], 200)


class MatrixBadInputTests(unittest.TestCase):
    """What a homeserver (or anyone) sends wrong: each is a clear Matrix-shaped error, nothing stored."""

    @classmethod
    def setUpClass(cls):
        cls.service = harness.Bouncer(BINARY, "--matrix-secret", "matrix-secret", "--send-rate-per-user", "0").start()
        cls.api = harness.Api(cls.service.port)
        cls.moderator = cls.service.token("mod", "moderator")

    @classmethod
    def tearDownClass(cls):
        cls.service.stop(keep_log_in=ARTIFACTS)

    def post(self, data, secret="matrix-secret"):
        headers = {"Content-Type": "application/json"}
        if secret:
            headers["Authorization"] = f"Bearer {secret}"
        status, _, answer = self.api._exchange("POST", "/v1/integrations/matrix/check_event_for_spam", data, headers)
        return status, json.loads(answer)

    def test_each_mistake_is_a_matrix_error_and_nothing_is_stored(self):
        event = {"event": {"type": "m.room.message", "room_id": "!r:hs", "sender": "@a:hs", "event_id": "$bad1",
                           "content": {"msgtype": "m.text", "body": "hello"}}}
        cases = [
            ("wrong secret", json.dumps(event).encode(), "wrong", 401, "M_UNKNOWN_TOKEN"),
            ("no secret", json.dumps(event).encode(), None, 401, "M_UNKNOWN_TOKEN"),
            ("malformed JSON", b'{"event": ', "matrix-secret", 400, "M_BAD_JSON"),
            ("missing fields", b'{"event": {"type": "m.room.message"}}', "matrix-secret", 400, "M_INVALID_PARAM"),
            ("huge body", json.dumps({"event": {**event["event"], "content": {"body": "x" * (2 * 1024 * 1024)}}}).encode(),
             "matrix-secret", 413, "M_TOO_LARGE"),
        ]
        for name, data, secret, status, errcode in cases:
            with self.subTest(name):
                try:
                    got_status, answer = self.post(data, secret)
                except (BrokenPipeError, ConnectionResetError):
                    # The service answers 413 as soon as the head says the body is too large and
                    # closes; a client still sending 2 MB on a busy machine may meet the close
                    # before it reads the answer. Refused either way: nothing is stored (below).
                    self.assertEqual(name, "huge body", "only a body too large is cut off")
                    continue
                self.assertEqual(got_status, status, answer)
                self.assertEqual(answer["errcode"], errcode)
                self.assertLessEqual(set(answer), {"errcode", "error", "retry_after_ms"}, "only Matrix's fields")
        self.assertEqual(self.api.call("GET", "/v1/messages/%24bad1", token=self.moderator, expect=(404,))["code"], "message_not_found")
        self.assertEqual(self.post(json.dumps(event).encode())[0], 200, "the service goes on")


# ---------------------------------------------------------------------------------------------
# Synapse


class MatrixUser:
    """One Matrix account, driven through matrix-nio on the test's event loop."""

    def __init__(self, loop, homeserver, user_id, password):
        from nio import AsyncClient
        self.loop = loop
        self.user_id = user_id
        self.client = AsyncClient(homeserver, user_id)
        response = self.run(self.client.login(password))
        assert getattr(response, "access_token", None), f"{user_id} could not log in: {response}"
        self.access_token = response.access_token

    def run(self, coroutine):
        return self.loop.run_until_complete(coroutine)

    def send(self, room, text, replacing=None):
        content = {"msgtype": "m.text", "body": text}
        if replacing:
            content = {"msgtype": "m.text", "body": "* " + text, "m.new_content": {"msgtype": "m.text", "body": text},
                       "m.relates_to": {"rel_type": "m.replace", "event_id": replacing}}
        return self.run(self.client.room_send(room, "m.room.message", content))

    def texts(self, room):
        """The bodies of the room's latest messages, as this user reads them."""
        response = self.run(self.client.room_messages(room, start="", limit=100))
        return [getattr(event, "body", None) for event in getattr(response, "chunk", [])]

    def event(self, room, event_id):
        return self.run(self.client.room_get_event(room, event_id))

    def membership(self, room, user):
        response = self.run(self.client.room_get_state_event(room, "m.room.member", user))
        return getattr(response, "content", {}).get("membership")

    def close(self):
        self.run(self.client.close())


class SynapseTests(unittest.TestCase):
    SECRET = "synapse-to-bouncer"

    @classmethod
    def setUpClass(cls):
        cls.loop = asyncio.new_event_loop()
        bouncer_port = harness.free_port()
        cls.synapse = synapse.Synapse(os.environ.get("BOUNCER_SYNAPSE_PYTHON", os.sys.executable), harness.free_port(), bouncer_port,
                                      cls.SECRET).configure().start()
        try:
            for user in ("alice", "bob", "carol", "dave"):
                cls.synapse.register(user, "password-" + user)
            cls.synapse.register("moderation-bot", "password-bot", admin=True)
            homeserver = cls.synapse.base_url
            cls.bot = MatrixUser(cls.loop, homeserver, "@moderation-bot:localhost", "password-bot")
            cls.users = {name: MatrixUser(cls.loop, homeserver, f"@{name}:localhost", "password-" + name)
                         for name in ("alice", "bob", "carol", "dave")}
            cls.service = harness.Bouncer(BINARY, "--matrix-secret", cls.SECRET, "--matrix-homeserver-url", homeserver,
                                          "--matrix-access-token", cls.bot.access_token, "--default-locale", "de",
                                          "--send-rate-per-user", "0", "--webhook-retry-seconds", "1")
            cls.service.start(port=bouncer_port)
            cls.api = harness.Api(cls.service.port)
            cls.admin = cls.service.token("root", "admin")
            cls.moderator = cls.service.token("mod", "moderator")
            for pattern, action in [("darn", "bounce"), ("kiwi", "flag")]:
                cls.api.call("POST", "/v1/rules", {"kind": "word", "pattern": pattern, "action": action}, token=cls.admin)
            cls.room = cls.public_room()
            cls.other_room = cls.public_room()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def public_room(cls):
        """A public room of alice's in which the bot may redact and ban; bob and dave joined."""
        from nio import RoomPreset, RoomVisibility
        alice = cls.users["alice"]
        created = alice.run(alice.client.room_create(
            visibility=RoomVisibility.public, preset=RoomPreset.public_chat,
            power_level_override={"users": {cls.bot.user_id: 50}}))
        room = getattr(created, "room_id", None)
        assert room, f"the room could not be created: {created}"
        for member in (cls.bot, cls.users["bob"], cls.users["dave"]):
            joined = member.run(member.client.join(room))
            assert getattr(joined, "room_id", None) == room, f"{member.user_id} could not join: {joined}"
        return room

    @classmethod
    def tearDownClass(cls):
        for user in [*getattr(cls, "users", {}).values(), getattr(cls, "bot", None)]:
            if user:
                user.close()
        if getattr(cls, "service", None):
            cls.service.stop(keep_log_in=ARTIFACTS)
        cls.synapse.stop(keep_log_in=ARTIFACTS)
        cls.loop.close()

    def test_a_clean_message_reaches_the_other_member(self):
        sent = self.users["alice"].send(self.room, "good morning, bob")
        self.assertTrue(getattr(sent, "event_id", None), sent)
        wait_for("bob to read alice's message", lambda: "good morning, bob" in self.users["bob"].texts(self.room))
        stored = stored_copy(self.api, self.moderator, sent.event_id)
        self.assertEqual((stored["user_id"], stored["channel_id"], stored["state"]), ("@alice:localhost", self.room, "delivered"))

    def test_a_bounced_message_is_refused_in_the_configured_language_and_never_delivered(self):
        refused = self.users["alice"].send(self.room, "oh darn it")
        self.assertEqual(getattr(refused, "status_code", None), "M_FORBIDDEN", refused)
        self.assertEqual(refused.message, localized(self.api, self.admin, "message.moderation.alert.message", "de"))
        self.users["alice"].send(self.room, "a marker after the bounce")
        wait_for("bob to read the marker", lambda: "a marker after the bounce" in self.users["bob"].texts(self.room))
        self.assertNotIn("oh darn it", self.users["bob"].texts(self.room))

    def test_a_flagged_message_is_delivered_and_waits_in_the_review_queue(self):
        sent = self.users["alice"].send(self.room, "a kiwi for everyone")
        self.assertTrue(getattr(sent, "event_id", None), sent)
        wait_for("bob to read the flagged message", lambda: "a kiwi for everyone" in self.users["bob"].texts(self.room))
        queue = self.api.call("GET", "/v1/review-queue", token=self.moderator)["items"]
        self.assertIn(sent.event_id, [item["message"]["id"] for item in queue])

    def test_an_edit_into_a_banned_word_is_refused(self):
        sent = self.users["alice"].send(self.room, "a harmless line")
        self.assertTrue(getattr(sent, "event_id", None), sent)
        stored_copy(self.api, self.moderator, sent.event_id)
        refused = self.users["alice"].send(self.room, "darn", replacing=sent.event_id)
        self.assertEqual(getattr(refused, "status_code", None), "M_FORBIDDEN", refused)
        stored = self.api.call("GET", f"/v1/messages/{quote(sent.event_id, safe='')}", token=self.moderator)
        self.assertEqual(stored["text"], "a harmless line")

    def test_a_user_banned_in_bouncer_can_neither_send_nor_join(self):
        carol = self.users["carol"]
        self.assertEqual(getattr(carol.run(carol.client.join(self.room)), "room_id", None), self.room)
        self.api.call("POST", "/v1/users/@carol:localhost/ban", {"reason": "spam"}, token=self.moderator)
        refused = carol.send(self.room, "let me in")
        self.assertEqual(getattr(refused, "status_code", None), "M_FORBIDDEN", refused)
        self.assertEqual(refused.message, localized(self.api, self.admin, "error.user_banned.detail", "de"))
        joined = carol.run(carol.client.join(self.other_room))
        self.assertEqual(getattr(joined, "status_code", None), "M_FORBIDDEN", joined)

    def test_a_moderators_removal_redacts_the_event(self):
        sent = self.users["alice"].send(self.room, "a kiwi to be removed")
        self.assertTrue(getattr(sent, "event_id", None), sent)
        wait_for("bob to read the message", lambda: "a kiwi to be removed" in self.users["bob"].texts(self.room))
        self.api.call("POST", f"/v1/messages/{quote(sent.event_id, safe='')}/review", {"decision": "remove_message"},
                      token=self.moderator)
        wait_for("the event to be redacted for bob",
                 lambda: type(self.users["bob"].event(self.room, sent.event_id).event).__name__ == "RedactedEvent")
        self.assertNotIn("a kiwi to be removed", self.users["bob"].texts(self.room))

    def test_only_the_authors_redaction_deletes_bouncers_copy(self):
        """Synapse asks Bouncer before it checks who may redact: a plain member's redaction of
        another's message, which Synapse then refuses, must leave Bouncer's copy as it was."""
        sent = self.users["alice"].send(self.room, "a kiwi for the redaction test")
        self.assertTrue(getattr(sent, "event_id", None), sent)
        stored_copy(self.api, self.moderator, sent.event_id)
        bob = self.users["bob"]
        refused = bob.run(bob.client.room_redact(self.room, sent.event_id, reason="not mine to redact"))
        self.assertEqual(getattr(refused, "status_code", None), "M_FORBIDDEN", refused)
        path = f"/v1/messages/{quote(sent.event_id, safe='')}"
        self.assertEqual(self.api.call("GET", path, token=self.moderator)["state"], "delivered")
        queue = self.api.call("GET", "/v1/review-queue", token=self.moderator)["items"]
        self.assertIn(sent.event_id, [item["message"]["id"] for item in queue], "the flagged message left the queue")
        alice = self.users["alice"]
        redacted = alice.run(alice.client.room_redact(self.room, sent.event_id, reason="mine"))
        self.assertTrue(getattr(redacted, "event_id", None), redacted)
        wait_for("Bouncer's copy to be deleted",
                 lambda: self.api.call("GET", path, token=self.moderator)["state"] == "deleted")

    def test_a_ban_in_bouncer_bans_in_the_room_and_lifting_it_unbans(self):
        dave = self.users["dave"]
        sent = dave.send(self.room, "dave was here")
        self.assertTrue(getattr(sent, "event_id", None), sent)
        self.api.call("POST", "/v1/users/@dave:localhost/ban", {"reason": "spam"}, token=self.moderator)
        wait_for("dave to be banned in the room", lambda: self.users["alice"].membership(self.room, dave.user_id) == "ban")
        self.api.call("DELETE", "/v1/users/@dave:localhost/ban", token=self.moderator)
        wait_for("dave to be unbanned in the room", lambda: self.users["alice"].membership(self.room, dave.user_id) == "leave")
        metrics = self.api.call("GET", "/metrics")
        self.assertIn('bouncer_matrix_homeserver_calls_total{call="ban",outcome="done"}', metrics)

    def test_zz_with_bouncer_stopped_messages_are_refused(self):
        """Last: it stops the service. The module is configured to fail closed."""
        self.service.process.terminate()
        self.service.process.wait(timeout=15)
        refused = self.users["alice"].send(self.room, "is anyone moderating?")
        self.assertFalse(getattr(refused, "event_id", None), refused)
        self.assertEqual(getattr(refused, "status_code", None), "M_UNKNOWN", refused)
