#!/usr/bin/env python3
"""A client generated from the binary's own /openapi.json, driven through the main flow against
the real binary on a fresh store.

    scripts/openapi-client-venv.sh >/dev/null
    $(scripts/openapi-client-venv.sh) Tests/openapi-client/run.py --binary .build/debug/bouncer

It starts the binary, reads /openapi.json from it, and generates a Python client with
openapi-python-client (pinned, scripts/openapi-client-venv.sh). Any warning of the generator fails
the run, but one: a `text/plain` body is a form it does not write, and is allowed where the same
operation takes JSON too (the JSON form is generated). Every operation must have its function.
Then, only through the generated client, with tokens from `bouncer token`: rules of several kinds
are created (and tried in a dry run and imported as JSON), a message is bounced in German
(`Accept-Language: de`, the alert checked against the German texts), sent anyway, another edited
and deleted, one flagged (with a default reason and one an admin added), the review queue read
and a decision taken, and a bounced message appealed and the appeal overturned. Last, the event
log is read back into the generated models. It stops the service it started and exits non-zero
on failure, with the service's log."""
import argparse
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "dashboard"))
from harness import Bouncer  # noqa: E402  (Tests/dashboard/harness.py: the service, started and stopped)
CHANNEL = "messaging:general"
PACKAGE = "bouncer_api_client"


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def generate(document_path, directory):
    """Runs the generator; returns the package's directory, or fails on a warning that costs an
    operation, a schema or a body form the operation has no other way to send."""
    generator = os.path.join(os.path.dirname(sys.executable), "openapi-python-client")
    check(os.path.exists(generator), f"openapi-python-client is not in {os.path.dirname(sys.executable)}: run this with "
                                     "the python scripts/openapi-client-venv.sh prints")
    output = os.path.join(directory, PACKAGE)
    environment = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    document_path = os.path.abspath(document_path)
    run = subprocess.run([generator, "generate", "--path", document_path, "--meta", "none", "--output-path", output],
                         capture_output=True, text=True, env=environment, cwd=directory)
    text = run.stdout + run.stderr
    check(run.returncode == 0, f"openapi-python-client failed ({run.returncode}):\n{text}")
    document = json.load(open(document_path))
    problems = []
    # Warnings come as "WARNING parsing <METHOD> <path> within <tag>. [...]" followed by details,
    # or as "Unable to process schema ..." blocks; each block ends at the next one.
    blocks = re.split(r"\n(?=WARNING |Unable to process|Failure to process|ERROR )", text)
    allowed = 0
    for block in blocks:
        head = block.strip().splitlines()[0] if block.strip() else ""
        if not re.match(r"(WARNING|ERROR|Unable to process|Failure to process)", head):
            continue
        parsed = re.match(r"WARNING parsing (\w+) (\S+) within", head)
        details = [line.strip() for line in block.strip().splitlines()[1:]
                   if line.strip() and not line.startswith((" ", "{", "}", "If you believe this was a mistake"))]
        if parsed and "will not be generated" not in head and details == ["Unsupported content type text/plain"]:
            method, path = parsed.group(1).lower(), parsed.group(2)
            content = document["paths"][path][method].get("requestBody", {}).get("content", {})
            if "application/json" in content:
                allowed += 1
                continue
        problems.append(block.strip())
    if "ruff is not in PATH" in text:
        problems.append("ruff (installed with the generator) was not found")
    check(not problems, "openapi-python-client warned:\n\n" + "\n\n".join(problems))
    # Every operation has its function.
    modules = {name[:-3] for _, _, files in os.walk(os.path.join(output, "api")) for name in files if name.endswith(".py")}
    missing = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", operation["operationId"]).lower()
            if snake not in modules:
                missing.append(f"{method.upper()} {path} ({operation['operationId']})")
    check(not missing, "operations without a generated function: " + ", ".join(missing))
    print(f"generated {sum(len(o) for o in document['paths'].values())} operations; "
          f"{allowed} text/plain body forms left to their JSON form")
    return output


class Flow:
    def __init__(self, service, directory):
        self.service = service
        sys.path.insert(0, directory)
        self.api = importlib.import_module(PACKAGE)
        self.models = importlib.import_module(PACKAGE + ".models")
        self.types = importlib.import_module(PACKAGE + ".types")
        self.clients = {}

    def client(self, user, role="user"):
        if user not in self.clients:
            self.clients[user] = self.api.AuthenticatedClient(base_url=self.service.base_url, token=self.service.token(user, role),
                                                              raise_on_unexpected_status=True, timeout=30)
        return self.clients[user]

    def call(self, operation, *args, status, **kwargs):
        """The operation's answer, parsed by the generated client; fails unless it has `status`."""
        module = importlib.import_module(f"{PACKAGE}.api.{operation}")
        response = module.sync_detailed(*args, **kwargs)
        name = operation.split(".")[-1]
        check(response.status_code == status, f"{name}: {int(response.status_code)}, not {status}: {response.content[:500]!r}")
        check(status == 204 or response.parsed is not None, f"{name}: the generated client could not read {response.content[:500]!r}")
        check(not isinstance(response.parsed, self.models.Problem) or status >= 400, f"{name}: a problem: {response.parsed}")
        return response

    def run(self):
        m = self.models
        admin = self.client("admin-1", "admin")
        moderator = self.client("moderator-1", "moderator")
        alice = self.client("alice")
        bob = self.client("bob")

        # Rules, one shape a kind.
        bounce = self.call("rules.create_rule", client=admin, status=201,
                           body=m.WordRuleCreate(kind="word", pattern="darn", action=m.RuleAction.BOUNCE_FLAG, inflections=True)).parsed
        check(bounce.kind == m.RuleKind.WORD and bounce.action == m.RuleAction.BOUNCE_FLAG, f"the word rule: {bounce}")
        self.call("rules.create_rule", client=admin, status=201,
                  body=m.AllowRuleCreate(kind="allow", pattern="darnell"))
        self.call("rules.create_rule", client=admin, status=201,
                  body=m.RegexRuleCreate(kind="regex", pattern=r"fr[e3]{2} m[o0]ney", action=m.RuleAction.FLAG,
                                         mode=m.RuleMode.OBSERVE, exempt_roles=[m.Role.MODERATOR]))
        flood = self.call("rules.create_rule", client=admin, status=201,
                          body=m.FloodRuleCreate(kind="flood", action=m.RuleAction.BOUNCE,
                                                 params=m.FloodParams(threshold=5, window_seconds=60,
                                                                      similarity=m.FloodSimilarity.SIMILAR))).parsed
        check(flood.params.threshold == 5 and flood.pattern == "", f"the flood rule: {flood}")
        self.call("rules.create_rule", client=admin, status=201,
                  body=m.LinksRuleCreate(kind="links", action=m.RuleAction.FLAG, params=m.LinksParams(max_=3)))
        refused = self.call("rules.create_rule", client=admin, status=422, accept_language="de",
                            body=m.RegexRuleCreate(kind="regex", pattern="(a)\\1", action=m.RuleAction.FLAG)).parsed
        check(isinstance(refused, m.Problem) and refused.code == "invalid_pattern", f"a backreference: {refused}")
        report = self.call("rules.dry_run_rules", client=moderator, status=200, body=m.DryRunRulesBody(rules=[
            m.PhraseRuleCreate(kind="phrase", pattern="buy now", action=m.RuleAction.FLAG),
            m.MentionsRuleCreate(kind="mentions", action=m.RuleAction.FLAG, params=m.MentionsParams(max_=5))])).parsed
        check(isinstance(report, m.DryRunReport), f"the dry run: {report}")
        imported = self.call("rules.import_rules", client=admin, status=201, body=m.ImportRulesJsonBody(rules=[
            m.DomainRuleCreate(kind="domain", pattern="spam.example", action=m.RuleAction.REMOVE),
            m.EmailRuleCreate(kind="email", pattern="*@spam.example", action=m.RuleAction.BOUNCE_FLAG)])).parsed
        check(imported.imported == 2, f"the import: {imported}")
        listed = self.call("rules.list_rules", client=moderator, status=200).parsed
        check(len(listed.rules) == 7, f"rules listed: {[rule.kind for rule in listed.rules]}")

        # A bounce, in German.
        german = self.call("localization.get_strings", client=alice, status=200, accept_language="de",
                           keys="message.moderation.alert.title,message.moderation.alert.resend").parsed
        title = german.strings["message.moderation.alert.title"]
        check(title != "Are you sure?", f"no German alert title: {german}")
        sent = self.call("messages.send_message", CHANNEL, client=alice, status=201, accept_language="de",
                         body=m.SendInput(text="well darn it")).parsed
        check(sent.state == m.MessageState.BOUNCED, f"the bounce: {sent.state}")
        check(sent.alert.title == title, f"the alert is not in German: {sent.alert}")
        resend_title = german.strings["message.moderation.alert.resend"]
        check(any(action.title == resend_title for action in sent.alert.actions), f"no German Send Anyway: {sent.alert.actions}")
        response = self.call("messages.send_message", CHANNEL, client=alice, status=201, accept_language="de",
                             body=m.SendInput(text="darn again"))
        check(response.headers.get("content-language") == "de", f"Content-Language: {response.headers.get('content-language')}")
        appealed = response.parsed

        # Send Anyway.
        resent = self.call("messages.resend_message", sent.id, client=alice, status=200).parsed
        check(resent.state == m.MessageState.DELIVERED, f"Send Anyway: {resent.state}")

        # Edit, then delete.
        clean = self.call("messages.send_message", CHANNEL, client=alice, status=201,
                          body=m.SendInput(text="hello there", id="client-1")).parsed
        check(clean.state == m.MessageState.DELIVERED and clean.id == "client-1", f"a clean message: {clean}")
        edited = self.call("messages.edit_message", clean.id, client=alice, status=200,
                           body=m.EditMessageBody(text="hello there, everyone")).parsed
        check(edited.edited and edited.text == "hello there, everyone", f"the edit: {edited}")
        self.call("messages.delete_message", clean.id, client=alice, status=204)
        gone = self.call("messages.get_message", clean.id, client=alice, status=200).parsed
        check(gone.type_ == m.MessageType.DELETED, f"after the delete: {gone}")

        # Flags: a default reason, and one an admin added.
        reported = self.call("messages.send_message", CHANNEL, client=alice, status=201, body=m.SendInput(text="a dull message")).parsed
        flag = self.call("flags.flag_message", reported.id, client=bob, status=201, body=m.FlagInput(reason="spam")).parsed
        check(flag.state == m.FlagState.OPEN, f"the flag: {flag}")
        settings = self.call("settings.get_config", client=admin, status=200).parsed
        reasons = list(settings.flag_reasons) + ["scam"]
        updated = self.call("settings.update_config", client=admin, status=200, body=m.Settings(flag_reasons=reasons)).parsed
        check("scam" in updated.flag_reasons, f"flag_reasons: {updated.flag_reasons}")
        carol = self.client("carol")
        self.call("flags.flag_message", reported.id, client=carol, status=201, body=m.FlagInput(reason="scam", details="a fake shop"))
        unknown = self.call("flags.flag_message", reported.id, client=self.client("dave"), status=400,
                            body=m.FlagInput(reason="not_configured"), accept_language="de").parsed
        check(unknown.code == "invalid_field", f"an unknown reason: {unknown}")

        # The review queue, and a decision.
        queue = self.call("flags.list_review_queue", client=moderator, status=200).parsed
        item = next((item for item in queue.items if item.message.id == reported.id), None)
        check(item is not None and item.flag_count == 2, f"the review queue: {queue}")
        decided = self.call("flags.review_message", reported.id, client=moderator, status=200,
                            body=m.ReviewInput(decision=m.ReviewInputDecision.REMOVE_MESSAGE, note="spam shop")).parsed
        check(decided.resolved == 2 and decided.message.state == m.MessageState.REMOVED, f"the decision: {decided}")

        # An appeal, overturned.
        appeal = self.call("appeals.appeal_message", appealed.id, client=alice, status=201,
                           body=m.AppealInput(reason="It was a quote.")).parsed
        check(appeal.state == m.AppealState.OPEN, f"the appeal: {appeal}")
        appeals = self.call("appeals.list_appeals", client=moderator, status=200).parsed
        check(any(entry.id == appeal.id for entry in appeals.appeals), f"the open appeals: {appeals}")
        overturned = self.call("appeals.decide_appeal", appeal.id, client=moderator, status=200,
                               body=m.AppealDecision(decision=m.AppealDecisionDecision.OVERTURN)).parsed
        check(overturned.state == m.AppealState.OVERTURNED, f"the appeal's decision: {overturned}")
        delivered = self.call("messages.get_message", appealed.id, client=alice, status=200).parsed
        check(delivered.state == m.MessageState.DELIVERED, f"after the overturn: {delivered.state}")

        # A problem in German, with the request's id.
        missing = self.call("rules.get_rule", "no-such-rule", client=moderator, status=404, accept_language="de",
                            x_request_id="client-flow-1")
        check(missing.parsed.code == "rule_not_found" and missing.parsed.title == "Nicht gefunden", f"a 404: {missing.parsed}")
        check(missing.headers.get("x-request-id") == "client-flow-1" and missing.parsed.request_id == "client-flow-1",
              f"the request id: {missing.headers.get('x-request-id')}")

        # The event log, read into the generated models.
        events = self.call("events.list_events", client=moderator, status=200, limit=200).parsed
        types = {event.type_ for event in events.events}
        for wanted in (m.EventType.RULE_CHANGED, m.EventType.MESSAGE_BOUNCED, m.EventType.MESSAGE_FLAGGED,
                       m.EventType.REVIEW_DECIDED, m.EventType.APPEAL_DECIDED):
            check(wanted in types, f"no {wanted} event in {sorted(types)}")
        check(hasattr(m.EventType, "WEBHOOK_TEST"), "the Event schema has no webhook.test type")
        test_event = m.Event.from_dict({"id": 0, "type": "webhook.test", "created_at": "2026-01-01T00:00:00.000Z",
                                        "data": {"webhook_id": "w"}})
        check(test_event.type_ == m.EventType.WEBHOOK_TEST, f"a webhook's test event: {test_event}")
        print(f"the flow passed: {len(events.events)} events")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/bouncer"))
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (the generated client)")
    arguments = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="bouncer-openapi-client.")
    service = None
    try:
        service = Bouncer(os.path.abspath(arguments.binary), "--send-rate-per-user", "0").start()
        document_path = os.path.join(directory, "openapi.json")
        with urllib.request.urlopen(service.base_url + "/openapi.json", timeout=10) as response, open(document_path, "wb") as file:
            file.write(response.read())
        generate(document_path, directory)
        Flow(service, directory).run()
        return 0
    except (Failure, RuntimeError) as failure:
        print(f"openapi-client: FAILED: {failure}", file=sys.stderr)
        if service is not None:
            print("the service's log (last lines):\n" + service.log_tail(30), file=sys.stderr)
        return 1
    finally:
        if service is not None:
            service.stop()
        if arguments.keep:
            print(f"kept {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
