import Foundation
import Testing
import TestSupport

/// Harm scores through the API, with the bundled model: `moderation.scores` for moderators only,
/// `score` rules in both modes, in `moderation/check` and in dry runs, and what a score rule may
/// be given.
@Suite struct HarmScoreTests {
    typealias Harness = RuleInsightsTests.Harness

    static let abuse = "you are a fucking idiot"
    static let disguisedAbuse = "you are a f u c k i n g 1d10t"
    static let ordinary = "the meeting moved to 3pm, see you there"

    @Test("a score rule bounces abuse, disguised or not; its entry names the attribute and score, which only moderators see")
    func aScoreRuleActs() async throws {
        let h = try await Harness()
        let ruleID = try await h.rule(["kind": "score", "params": ["attribute": "toxicity", "threshold": 0.9], "action": "bounce"])
        for text in [Self.abuse, Self.disguisedAbuse] {
            let sent = try await h.send(text, as: h.user("author"))
            #expect(sent["state"] as? String == "bounced", "\(text)")
            let asAuthor = try #require(sent["moderation"] as? [String: Any])
            let authorRule = try #require((asAuthor["rules"] as? [[String: Any]])?.first)
            #expect(authorRule["id"] as? String == ruleID)
            #expect(authorRule["attribute"] as? String == "toxicity")
            #expect(authorRule["score"] == nil, "authors never see scores")
            #expect(asAuthor["scores"] == nil, "authors never see scores")

            let id = try #require(sent["id"] as? String)
            let asModerator = try await h.asModerator(id)
            let moderation = try #require(asModerator["moderation"] as? [String: Any])
            let score = try #require((moderation["scores"] as? [String: Any])?["toxicity"] as? Double)
            #expect(score >= 0.9)
            let rule = try #require((moderation["rules"] as? [[String: Any]])?.first)
            #expect(rule["kind"] as? String == "score")
            #expect(rule["score"] as? Double == score)
        }
        let clean = try await h.send(Self.ordinary, as: h.user("author"))
        #expect(clean["state"] as? String == "delivered")
        #expect(clean["moderation"] == nil)

        // Events carry the message as a moderator sees it: with its scores.
        let events = try await h.call("GET", "/v1/events?types=message.bounced", as: h.moderator)
        let bounced = try #require(events.json?["events"] as? [[String: Any]])
        #expect(bounced.count == 2)
        for event in bounced {
            let moderation = try #require((event["data"] as? [String: Any])?["moderation"] as? [String: Any])
            #expect(((moderation["scores"] as? [String: Any])?["toxicity"] as? Double ?? 0) >= 0.9, "\(event)")
        }
    }

    @Test("every message carries its scores for moderators, and for nobody else")
    func scoresAreForModerators() async throws {
        let h = try await Harness()
        let sent = try await h.send(Self.ordinary, as: h.user("author"))
        let id = try #require(sent["id"] as? String)
        let asModerator = try await h.asModerator(id)
        let moderation = try #require(asModerator["moderation"] as? [String: Any])
        #expect(moderation["action"] as? String == "none")
        let score = try #require((moderation["scores"] as? [String: Any])?["toxicity"] as? Double)
        #expect(score < 0.5)
        let asReader = try await h.call("GET", "/v1/messages/\(id)", as: h.user("reader"))
        #expect(asReader.status == 200)
        #expect(asReader.json?["moderation"] == nil)
        let listed = try await h.call("GET", "/v1/channels/general/messages", as: h.user("author"))
        let mine = try #require((listed.json?["messages"] as? [[String: Any]])?.first)
        #expect(mine["moderation"] == nil)
    }

    @Test("an observed score rule decides nothing, is shown to moderators and counted")
    func observedScoreRule() async throws {
        let h = try await Harness()
        let ruleID = try await h.rule(["kind": "score", "params": ["attribute": "toxicity", "threshold": 0.5], "action": "remove", "mode": "observe"])
        let sent = try await h.send(Self.abuse, as: h.user("author"))
        #expect(sent["state"] as? String == "delivered")
        let id = try #require(sent["id"] as? String)
        let moderation = try #require(try await h.asModerator(id)["moderation"] as? [String: Any])
        let observed = try #require((moderation["observed"] as? [[String: Any]])?.first)
        #expect(observed["id"] as? String == ruleID)
        #expect(observed["attribute"] as? String == "toxicity")
        _ = try await h.stats(ruleID) { ($0["observed_hits"] as? Int) == 1 }
    }

    @Test("moderation/check answers the scores and the score rules that would act")
    func checkShowsScores() async throws {
        let h = try await Harness()
        let ruleID = try await h.rule(["kind": "score", "params": ["attribute": "toxicity", "threshold": 0.8], "action": "flag"])
        let check = try await h.call("POST", "/v1/moderation/check", as: h.moderator, body: try Harness.body(["text": Self.abuse]))
        #expect(check.status == 200, "\(check.text)")
        #expect(check.json?["action"] as? String == "flag")
        #expect((check.json?["rules"] as? [[String: Any]])?.first?["id"] as? String == ruleID)
        #expect(((check.json?["scores"] as? [String: Any])?["toxicity"] as? Double ?? 0) > 0.8)
        let clean = try await h.call("POST", "/v1/moderation/check", as: h.moderator, body: try Harness.body(["text": Self.ordinary]))
        #expect(clean.json?["action"] as? String == "none")
        #expect(((clean.json?["scores"] as? [String: Any])?["toxicity"] as? Double ?? 1) < 0.5)
    }

    @Test("text rules still decide first when stronger")
    func strongerTextRulesDecide() async throws {
        let h = try await Harness()
        _ = try await h.rule(["kind": "score", "params": ["attribute": "toxicity", "threshold": 0.5], "action": "flag"])
        let wordRule = try await h.rule(["kind": "word", "pattern": "idiot", "action": "remove"])
        let sent = try await h.send(Self.abuse, as: h.user("author"))
        #expect(sent["state"] as? String == "removed")
        let rules = try #require((sent["moderation"] as? [String: Any])?["rules"] as? [[String: Any]])
        #expect(rules.first?["id"] as? String == wordRule)
        #expect(rules.count == 2)
    }

    @Test("a dry run of a score rule finds the messages it would act on")
    func dryRunOfAScoreRule() async throws {
        let h = try await Harness()
        for text in [Self.abuse, Self.ordinary, "shut up you stupid bitch", "thanks for the help"] {
            try await h.send(text, as: h.user("author"))
        }
        let response = try await h.call("POST", "/v1/rules/dry-run", as: h.moderator, body: try Harness.body(
            ["rules": [["kind": "score", "params": ["attribute": "toxicity", "threshold": 0.9], "action": "bounce"]]]))
        #expect(response.status == 200, "\(response.text)")
        #expect(response.json?["matched"] as? Int == 2)
        #expect(response.json?["changes"] as? [String: Int] == ["delivered->bounced": 2])
    }

    @Test("a score rule needs an attribute the model scores and a threshold above 0, at most 1")
    func scoreRuleValidation() async throws {
        let h = try await Harness()
        func create(_ params: [String: Any]) async throws -> ServiceHarness.Reply {
            try await h.call("POST", "/v1/rules", as: h.admin, body: try Harness.body(["kind": "score", "params": params, "action": "flag"]))
        }
        for params: [String: Any] in [["attribute": "toxicity", "threshold": 0], ["attribute": "toxicity", "threshold": 1.5],
                                      ["attribute": "toxicity"], ["threshold": 0.5], ["attribute": "Toxicity!", "threshold": 0.5],
                                      ["attribute": "toxicity", "threshold": 0.5, "max": 3]] {
            let refused = try await create(params)
            #expect(refused.status == 400, "\(params): \(refused.text)")
            #expect(refused.json?["code"] as? String == "invalid_field")
        }
        let unknown = try await create(["attribute": "threat", "threshold": 0.5])
        #expect(unknown.status == 400)
        #expect((unknown.json?["detail"] as? String)?.contains("toxicity") == true, "\(unknown.text)")
        #expect(try await create(["attribute": "toxicity", "threshold": 1]).status == 201)
        let fractionalFlood = try await h.call("POST", "/v1/rules", as: h.admin, body: try Harness.body(
            ["kind": "flood", "params": ["threshold": 2.5, "window_seconds": 60], "action": "flag"]))
        #expect(fractionalFlood.status == 400)
        let rule = try await h.call("POST", "/v1/rules", as: h.admin, body: try Harness.body(
            ["kind": "flood", "params": ["threshold": 3, "window_seconds": 60], "action": "flag"]))
        #expect(((rule.json?["params"] as? [String: Any])?["threshold"] as? Int) == 3)
    }
}
