import Foundation
import Testing
import TestSupport

/// `/v1/classifiers`: the bundled model listed in force, a version trained from given examples and
/// the reviewed messages, measured and stored but not in force, and put in force on every instance
/// only when it is no worse (or forced).
@Suite struct ClassifierTests {
    typealias Harness = RuleInsightsTests.Harness

    /// Examples in which "pizza" is what this community removes, and weather talk is fine.
    static func examples(count: Int, seed: Int, noise: Bool = false) -> [[String: Any]] {
        let toppings = ["cheese", "olive", "pepper", "onion", "ham", "mushroom"]
        let weather = ["rain", "sunny", "cloudy", "windy", "snow", "fog"]
        return (0..<count).map { index in
            let pizza = index % 2 == 0
            let word = (pizza ? toppings : weather)[(index / 2 + seed) % 6]
            let text = pizza ? "pizza with \(word) again \(index)" : "it is \(word) today \(index)"
            // Noise: labels that say nothing of the text.
            let label = noise ? ((index * 7919 + seed) % 5 < 2 ? 1 : 0) : (pizza ? 1 : 0)
            return ["text": text, "label": label]
        }
    }

    func waitReady(_ h: Harness, _ id: String) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(60))
        while true {
            let reply = try await h.call("GET", "/v1/classifiers/\(id)", as: h.moderator)
            #expect(reply.status == 200, "\(reply.text)")
            let state = reply.json?["state"] as? String
            if state != "training" { return reply.json ?? [:] }
            guard ContinuousClock.now < deadline else {
                Issue.record("classifier \(id) still training after 60 s")
                return reply.json ?? [:]
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    func train(_ h: Harness, _ body: [String: Any]) async throws -> String {
        let reply = try await h.call("POST", "/v1/classifiers/train", as: h.admin, body: try Harness.body(body))
        #expect(reply.status == 202, "\(reply.text)")
        #expect(reply.json?["state"] as? String == "training")
        return try #require(reply.json?["id"] as? String)
    }

    func toxicity(_ h: Harness, _ text: String) async throws -> Double {
        let check = try await h.call("POST", "/v1/moderation/check", as: h.moderator, body: try Harness.body(["text": text]))
        return try #require((check.json?["scores"] as? [String: Any])?["toxicity"] as? Double)
    }

    @Test("the bundled model is listed, in force, with its evaluation")
    func theBundledModelIsListed() async throws {
        let h = try await Harness()
        let reply = try await h.call("GET", "/v1/classifiers", as: h.moderator)
        #expect(reply.status == 200, "\(reply.text)")
        let first = try #require((reply.json?["classifiers"] as? [[String: Any]])?.first)
        #expect(first["id"] as? String == "bundled-toxicity-en-1")
        #expect(first["in_force"] as? Bool == true)
        #expect(first["attributes"] as? [String] == ["toxicity"])
        #expect(first["languages"] as? [String] == ["en"])
        let evaluation = try #require(first["evaluation"] as? [String: Any])
        #expect((evaluation["auc"] as? Double ?? 0) > 0.95)
        #expect((evaluation["held_out"] as? Int ?? 0) > 10_000)
        #expect(reply.json?.keys.contains("next_cursor") == true)
    }

    @Test("a version trained from examples is measured, stored, not in force, and put in force on every instance")
    func trainThenActivate() async throws {
        let h = try await Harness()
        let before = try await toxicity(h, "pizza with cheese again")
        let id = try await train(h, ["include_reviews": false, "examples": Self.examples(count: 400, seed: 1)])
        let trained = try await waitReady(h, id)
        #expect(trained["state"] as? String == "ready", "\(trained)")
        #expect(trained["in_force"] as? Bool == false)
        #expect(trained["base"] as? String == "bundled-toxicity-en-1")
        #expect(trained["examples"] as? Int == 400)
        let evaluation = try #require(trained["evaluation"] as? [String: Any])
        #expect((evaluation["auc"] as? Double ?? 0) > 0.9)
        #expect(evaluation["held_out"] as? Int == 40)
        let comparison = try #require(evaluation["compared_with"] as? [String: Any])
        #expect(comparison["id"] as? String == "bundled-toxicity-en-1")
        #expect(try await toxicity(h, "pizza with cheese again") == before, "a trained version is not in force before its activation")

        let activated = try await h.call("POST", "/v1/classifiers/\(id)/activate", as: h.admin)
        #expect(activated.status == 200, "\(activated.text)")
        #expect(activated.json?["in_force"] as? Bool == true)
        try await h.service.level(timeout: .seconds(10))
        #expect(try await toxicity(h, "pizza with cheese again") > 0.5)
        let listed = try await h.call("GET", "/v1/classifiers", as: h.moderator)
        let versions = try #require(listed.json?["classifiers"] as? [[String: Any]])
        #expect(versions.filter { $0["in_force"] as? Bool == true }.map { $0["id"] as? String } == [id])

        // A version no better than the one in force is refused, unless forced.
        let noisy = try await train(h, ["base": "bundled-toxicity-en-1", "include_reviews": false,
                                        "examples": Self.examples(count: 400, seed: 2, noise: true)])
        #expect(try await waitReady(h, noisy)["state"] as? String == "ready")
        let refused = try await h.call("POST", "/v1/classifiers/\(noisy)/activate", as: h.admin)
        #expect(refused.status == 409, "\(refused.text)")
        #expect(refused.json?["code"] as? String == "worse_model")
        let forced = try await h.call("POST", "/v1/classifiers/\(noisy)/activate", as: h.admin, body: #"{"force":true}"#)
        #expect(forced.status == 200, "\(forced.text)")

        // And back to the bundled model.
        let back = try await h.call("POST", "/v1/classifiers/bundled-toxicity-en-1/activate", as: h.admin, body: #"{"force":true}"#)
        #expect(back.status == 200, "\(back.text)")
        try await h.service.level(timeout: .seconds(10))
        #expect(try await toxicity(h, "pizza with cheese again") == before)
    }

    @Test("the reviewed messages are training data: a removal confirms, a dismissal clears")
    func reviewedMessagesTrain() async throws {
        let h = try await Harness()
        for (text, decision) in [("pizza is a crime", "remove_message"), ("the weather is fine", "dismiss"), ("pizza again", "ban_author")] {
            let sent = try await h.send(text, as: h.user("author"))
            let id = try #require(sent["id"] as? String)
            #expect(try await h.call("POST", "/v1/messages/\(id)/flag", as: h.user("reporter"), body: #"{"reason":"spam"}"#).status == 201)
            #expect(try await h.call("POST", "/v1/messages/\(id)/review", as: h.moderator,
                                     body: try Harness.body(["decision": decision])).status == 200)
        }
        let id = try await train(h, ["include_reviews": true])
        let failed = try await waitReady(h, id)
        // Three decided messages are too few to train and measure a version on: it fails, and says so.
        #expect(failed["state"] as? String == "failed")
        #expect((failed["error"] as? String)?.contains("3 examples") == true, "\(failed)")
        let withExamples = try await train(h, ["include_reviews": true, "examples": Self.examples(count: 100, seed: 3)])
        #expect(try await waitReady(h, withExamples)["examples"] as? Int == 103)
    }

    @Test("training requests are checked, and only admins train or activate")
    func trainingIsChecked() async throws {
        let h = try await Harness()
        for body: [String: Any] in [["examples": [["text": "", "label": 1]]], ["examples": [["text": "x", "label": 2]]],
                                    ["examples": [["text": "x", "label": 1, "attribute": "Bad!"]]],
                                    ["examples": Array(repeating: ["text": "x", "label": 1], count: 10_001)],
                                    ["base": "no-such-version"]] {
            let reply = try await h.call("POST", "/v1/classifiers/train", as: h.admin, body: try Harness.body(body))
            #expect(reply.status == 400, "\(reply.text.prefix(300))")
        }
        let nothing = try await h.call("POST", "/v1/classifiers/train", as: h.admin, body: #"{"include_reviews":false}"#)
        #expect(nothing.status == 422, "\(nothing.text)")
        #expect(nothing.json?["code"] as? String == "nothing_to_train")
        #expect(try await h.call("POST", "/v1/classifiers/train", as: h.moderator, body: "{}").status == 403)
        #expect(try await h.call("POST", "/v1/classifiers/bundled-toxicity-en-1/activate", as: h.moderator).status == 403)
        #expect(try await h.call("GET", "/v1/classifiers", as: h.user("someone")).status == 403)
        #expect(try await h.call("GET", "/v1/classifiers/nope", as: h.moderator).status == 404)
        #expect(try await h.call("POST", "/v1/classifiers/nope/activate", as: h.admin).status == 404)
    }
}
