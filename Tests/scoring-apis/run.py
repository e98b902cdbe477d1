#!/usr/bin/env python3
"""Bouncer's Perspective and OpenAI endpoints, driven by the clients their users already run,
against the real binary on a fresh store.

    $(scripts/scoring-clients-venv.sh) Tests/scoring-apis/run.py --binary .build/debug/bouncer

- Google's API client library builds a Perspective client from Bouncer's own discovery URL
  (`discovery.build("commentanalyzer", "v1alpha1", discoveryServiceUrl=...)`), with a moderator's
  token as the developer key, and scores texts: the toxicity of abuse and of ordinary chat, span
  scores per sentence in UTF-16 offsets (an emoji first), the client token echoed, a threshold
  that leaves an attribute out; an unknown attribute, an empty text, a text over 20 KB and a
  user's token are refused in Google's error shape.
- The `perspective` package (PyPI), pointed at Bouncer, scores the same way.
- OpenAI's SDK with `base_url` moderates a string and a list: `harassment` is the toxicity,
  flagged at the score rule in force (0.5 without one); an empty input, 101 inputs and a wrong
  key are refused in OpenAI's error shape, as its SDK's exceptions.
- Nothing is stored: the event log stays empty, and the metrics count the texts scored.
It stops the service it started and exits non-zero on failure, with the service's log."""
import argparse
import json
import os
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "dashboard"))
from harness import Api, Bouncer  # noqa: E402  (Tests/dashboard/harness.py: the service, started and stopped; a JSON client)

ABUSE = "you are a fucking idiot"
ORDINARY = "the meeting moved to 3pm, see you there"


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def utf16_length(text):
    return len(text.encode("utf-16-le")) // 2


def google_client(bouncer, token):
    from googleapiclient import discovery
    return discovery.build("commentanalyzer", "v1alpha1", developerKey=token, static_discovery=False, cache_discovery=False,
                           discoveryServiceUrl=bouncer.base_url + "/$discovery/rest?version={apiVersion}")


def google_refusal(call):
    """The status and Google error body of a refused call."""
    from googleapiclient.errors import HttpError
    try:
        call()
    except HttpError as error:
        return error.resp.status, json.loads(error.content)
    raise Failure("the call was not refused")


def perspective_with_google_client(bouncer, moderator, user):
    client = google_client(bouncer, moderator)

    def analyze(body):
        return client.comments().analyze(body=body).execute()

    abuse = analyze({"comment": {"text": ABUSE}, "requestedAttributes": {"TOXICITY": {}}, "clientToken": "c-1"})
    score = abuse["attributeScores"]["TOXICITY"]["summaryScore"]
    check(score["type"] == "PROBABILITY" and score["value"] > 0.9, f"abuse: {abuse}")
    check(abuse["clientToken"] == "c-1", f"the client token is echoed: {abuse}")
    check(abuse["languages"] == ["en"], f"languages: {abuse}")
    ordinary = analyze({"comment": {"text": ORDINARY}, "requestedAttributes": {"TOXICITY": {}}, "languages": ["en"]})
    check(ordinary["attributeScores"]["TOXICITY"]["summaryScore"]["value"] < 0.5, f"ordinary chat: {ordinary}")

    # Span scores, a sentence each, in UTF-16 code units: the emoji counts two.
    first, second = "😀 You are an idiot.", "Have a lovely day!"
    spans = analyze({"comment": {"text": first + " " + second}, "requestedAttributes": {"TOXICITY": {}},
                     "spanAnnotations": True})["attributeScores"]["TOXICITY"]["spanScores"]
    check([(s["begin"], s["end"]) for s in spans] == [(0, utf16_length(first)), (utf16_length(first) + 1,
                                                      utf16_length(first) + 1 + utf16_length(second))], f"spans: {spans}")
    check(spans[0]["score"]["value"] > 0.5 > spans[1]["score"]["value"], f"span scores: {spans}")
    whole = analyze({"comment": {"text": first}, "requestedAttributes": {"TOXICITY": {}}})["attributeScores"]["TOXICITY"]["spanScores"]
    check(whole == [{"begin": 0, "end": utf16_length(first), "score": whole[0]["score"]}], f"one span without spanAnnotations: {whole}")
    left_out = analyze({"comment": {"text": ORDINARY}, "requestedAttributes": {"TOXICITY": {"scoreThreshold": 0.9}}})
    check(left_out.get("attributeScores") == {}, f"an attribute under its threshold is left out: {left_out}")

    for body, what in [({"comment": {"text": ABUSE}, "requestedAttributes": {"THREAT": {}}}, "THREAT"),
                       ({"comment": {"text": "  "}, "requestedAttributes": {"TOXICITY": {}}}, "empty"),
                       ({"comment": {"text": "a" * 20481}, "requestedAttributes": {"TOXICITY": {}}}, "too long"),
                       ({"comment": {"text": ABUSE}, "requestedAttributes": {}}, "no attributes"),
                       ({"comment": {"text": ABUSE}, "requestedAttributes": {"TOXICITY": {}}, "languages": ["xx"]}, "a language")]:
        status, error = google_refusal(lambda: analyze(body))
        check(status == 400 and error["error"]["status"] == "INVALID_ARGUMENT" and error["error"]["code"] == 400
              and error["error"]["message"], f"{what}: {status} {error}")
    status, error = google_refusal(lambda: google_client(bouncer, user).comments().analyze(
        body={"comment": {"text": ABUSE}, "requestedAttributes": {"TOXICITY": {}}}).execute())
    check(status == 403 and error["error"]["status"] == "PERMISSION_DENIED", f"a user's token: {status} {error}")



def perspective_package(bouncer, moderator):
    from perspective import PerspectiveAPI
    client = PerspectiveAPI(moderator)
    client.api_client.url = bouncer.base_url + "/v1alpha1/{endpoint}"
    answer = client.analyze_comment(ABUSE, requested_attributes={"TOXICITY": {}}, span_annotations=True, languages=["en"])
    check(answer["attributeScores"]["TOXICITY"]["summaryScore"]["value"] > 0.9, f"perspective package: {answer}")



def openai_sdk(bouncer, api, moderator, admin):
    import openai
    client = openai.OpenAI(base_url=bouncer.base_url + "/v1", api_key=moderator, max_retries=0)
    result = client.moderations.create(input=ABUSE, model="omni-moderation-latest").results[0]
    check(result.flagged and result.categories.harassment and result.category_scores.harassment > 0.9, f"abuse: {result}")
    check(not result.categories.hate and result.category_scores.hate == 0, f"a category the model does not score: {result}")
    both = client.moderations.create(input=[ABUSE, ORDINARY])
    check([r.flagged for r in both.results] == [True, False], f"a list: {both}")
    check(both.model == "bundled-toxicity-en-1", f"the model: {both.model}")

    # A score rule in force sets where `flagged` starts.
    rule = api.call("POST", "/v1/rules", {"kind": "score", "params": {"attribute": "toxicity", "threshold": 0.0001},
                                             "action": "flag"}, token=admin)
    check(client.moderations.create(input=ORDINARY).results[0].flagged, "flagged at the score rule's threshold")
    api.call("DELETE", f"/v1/rules/{rule['id']}", token=admin)

    for value, what in [([], "an empty list"), ([ABUSE] * 101, "101 inputs"), ("", "an empty text"), ("a" * 20481, "a long text")]:
        try:
            client.moderations.create(input=value)
            raise Failure(f"{what} was scored")
        except openai.BadRequestError as error:
            check(error.status_code == 400 and error.body.get("type") == "invalid_request_error" and error.body.get("message"),
                  f"{what}: {error.body}")
    try:
        openai.OpenAI(base_url=bouncer.base_url + "/v1", api_key="not-a-token", max_retries=0).moderations.create(input=ABUSE)
        raise Failure("a wrong key was taken")
    except openai.AuthenticationError as error:
        check(error.status_code == 401 and error.body.get("code") == "invalid_api_key", f"a wrong key: {error.body}")



def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    arguments = parser.parse_args()
    bouncer = Bouncer(arguments.binary)
    bouncer.start()
    try:
        moderator, admin, user = bouncer.token("mod", "moderator"), bouncer.token("root", "admin"), bouncer.token("someone")
        perspective_with_google_client(bouncer, moderator, user)
        perspective_package(bouncer, moderator)
        api = Api(bouncer.port)
        openai_sdk(bouncer, api, moderator, admin)
        events = api.call("GET", "/v1/events?types=message.bounced,message.flagged,message.removed", token=moderator)
        check(events["events"] == [], f"nothing is stored: {events}")
        metrics = urllib.request.urlopen(bouncer.base_url + "/metrics").read().decode()
        scored = sum(float(line.split()[-1]) for line in metrics.splitlines() if line.startswith("bouncer_scored_texts_total{"))
        # Perspective: five texts through Google's client and one through the package; OpenAI: 1 + 2 + 1.
        check(scored == 10, f"the metrics count the texts scored: {scored}")
        print("the scoring APIs passed: Google's client, the perspective package and OpenAI's SDK")
    except Exception as error:
        print(f"FAILED: {error}\n--- the service's log:\n{bouncer.log_tail(40)}", file=sys.stderr)
        bouncer.stop()
        sys.exit(1)
    bouncer.stop()


if __name__ == "__main__":
    main()
