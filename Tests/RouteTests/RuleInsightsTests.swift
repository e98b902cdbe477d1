import Foundation
import Testing
import TestSupport

/// Observe mode, rule statistics and precision, rate rules (`flood`, `mentions`, `links`), and the
/// sender conditions any rule may carry (`exempt_roles`, `new_users_only_seconds`), through the API.
@Suite(.oneInstance) struct RuleInsightsTests {
    /// The service, with an admin, a moderator and users, each called by name.
    final class Harness: Sendable {
        let service: ServiceHarness
        let admin = "admin-1"
        let moderator = "moderator-1"

        init() async throws {
            service = try await ServiceHarness()
            service.addUsers([admin], role: .admin)
            service.addUsers([moderator], role: .moderator)
        }

        /// A user's name, by which the harness calls as them.
        func user(_ name: String) -> String { name }

        func call(_ method: String, _ path: String, as user: String, body: String? = nil) async throws -> ServiceHarness.Reply {
            try await service.call(method, path, as: user, body: body)
        }

        static func body(_ object: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }

        /// Creates a rule; returns its id.
        func rule(_ fields: [String: Any]) async throws -> String {
            let response = try await call("POST", "/v1/rules", as: admin, body: try Self.body(fields))
            #expect(response.status == 201, "\(response.text)")
            return try #require(response.json?["id"] as? String)
        }

        /// Sends as `user`; returns the message as its author sees it.
        @discardableResult
        func send(_ text: String, as user: String, channel: String = "general") async throws -> [String: Any] {
            let response = try await call("POST", "/v1/channels/\(channel)/messages", as: user, body: try Self.body(["text": text]))
            #expect(response.status == 201, "\(response.text)")
            return response.json ?? [:]
        }

        func state(_ text: String, as user: String) async throws -> String {
            try await send(text, as: user)["state"] as? String ?? "?"
        }

        func asModerator(_ messageID: String) async throws -> [String: Any] {
            try await call("GET", "/v1/messages/\(messageID)", as: moderator).json ?? [:]
        }

        func stats(_ ruleID: String) async throws -> [String: Any] {
            let response = try await call("GET", "/v1/rules/\(ruleID)/stats", as: moderator)
            #expect(response.status == 200, "\(response.text)")
            return response.json ?? [:]
        }

        /// Waits until the rule's stats satisfy `condition` (hits reach the store about once a
        /// second), up to a generous 20 s on a busy machine.
        func stats(_ ruleID: String, until condition: ([String: Any]) -> Bool) async throws -> [String: Any] {
            let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(20))
            var last = try await stats(ruleID)
            while !condition(last) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                last = try await stats(ruleID)
            }
            #expect(condition(last), "waited 20 s for rule \(ruleID)'s stats to hold; last: \(last)")
            return last
        }
    }

    @Test("an observed rule is matched, counted and shown to moderators, and decides nothing until enforced")
    func observeThenEnforce() async throws {
        let h = try await Harness()
        let author = h.user("author")
        let ruleID = try await h.rule(["kind": "word", "pattern": "crypto", "action": "bounce", "mode": "observe"])

        let sent = try await h.send("free crypto for all", as: author)
        #expect(sent["state"] as? String == "delivered")
        #expect(sent["moderation"] == nil, "the author sees nothing of an observed rule")
        let seen = try await h.asModerator(try #require(sent["id"] as? String))
        let moderation = try #require(seen["moderation"] as? [String: Any])
        #expect(moderation["action"] as? String == "none")
        #expect((moderation["rules"] as? [Any])?.isEmpty == true)
        let observed = try #require((moderation["observed"] as? [[String: Any]])?.first)
        #expect(observed["id"] as? String == ruleID)
        #expect(((observed["matched"] as? [[String: Any]])?.first)?["text"] as? String == "crypto")

        let check = try await h.call("POST", "/v1/moderation/check", as: h.moderator,
                                     body: #"{"text":"crypto"}"#).json ?? [:]
        #expect(check["action"] as? String == "none")
        #expect((check["observed"] as? [[String: Any]])?.first?["id"] as? String == ruleID)

        // Enforced, the same rule bounces.
        let patched = try await h.call("PATCH", "/v1/rules/\(ruleID)", as: h.admin, body: #"{"mode":"enforce"}"#)
        #expect(patched.status == 200)
        #expect(patched.json?["mode"] as? String == "enforce")
        #expect(try await h.state("more crypto", as: author) == "bounced")

        let stats = try await h.stats(ruleID) { ($0["hits"] as? Int) == 2 }
        #expect(stats["observed_hits"] as? Int == 1)
        #expect(stats["enforced_hits"] as? Int == 1)
        #expect(stats["precision"] is NSNull)
        #expect(try await h.call("GET", "/v1/rules/no-such-rule/stats", as: h.moderator).status == 404)
        #expect(try await h.call("GET", "/v1/rules/\(ruleID)/stats", as: h.user("author")).status == 403)
        #expect(try await h.call("PATCH", "/v1/rules/\(ruleID)", as: h.admin, body: #"{"mode":"loud"}"#).status == 400)
    }

    /// Hand-worked: the rule hit five messages; reviews removed two, banned one author and
    /// dismissed one; one hit message was never reviewed. Precision is 3 / (3 + 1).
    @Test("precision is confirmed over confirmed and dismissed reviews of the messages a rule hit")
    func precisionFromReviews() async throws {
        let h = try await Harness()
        let ruleID = try await h.rule(["kind": "word", "pattern": "scam", "action": "flag"])
        let other = try await h.rule(["kind": "word", "pattern": "unrelated", "action": "flag"])
        var ids: [String] = []
        for index in 0..<5 {
            ids.append(try #require(try await h.send("this is scam number \(index)", as: h.user("author\(index)"))["id"] as? String))
        }
        for (id, decision) in zip(ids, ["remove_message", "remove_message", "ban_author", "dismiss"]) {
            let reviewed = try await h.call("POST", "/v1/messages/\(id)/review", as: h.moderator,
                                            body: try Harness.body(["decision": decision]))
            #expect(reviewed.status == 200, "\(reviewed.text)")
        }
        let stats = try await h.stats(ruleID) { ($0["hits"] as? Int) == 5 }
        #expect(stats["confirmed"] as? Int == 3)
        #expect(stats["dismissed"] as? Int == 1)
        #expect(stats["messages_reviewed"] as? Int == 4)
        #expect(stats["precision"] as? Double == 0.75)

        // A second review of the same message replaces the first: still four messages reviewed.
        _ = try await h.call("POST", "/v1/messages/\(ids[3])/review", as: h.moderator,
                             body: #"{"decision":"remove_message"}"#)
        let again = try await h.stats(ruleID)
        #expect(again["messages_reviewed"] as? Int == 4)
        #expect(again["precision"] as? Double == 1.0)

        // The list: sorted by hits, then by precision (rules without reviews last).
        let byHits = try await h.call("GET", "/v1/rules/stats?sort=hits", as: h.moderator).json ?? [:]
        let listed = try #require(byHits["stats"] as? [[String: Any]])
        #expect(listed.map { $0["rule_id"] as? String } == [ruleID, other])
        let paged = try await h.call("GET", "/v1/rules/stats?sort=precision&limit=1", as: h.moderator).json ?? [:]
        #expect((paged["stats"] as? [[String: Any]])?.first?["rule_id"] as? String == ruleID)
        let cursor = try #require(paged["next_cursor"] as? String)
        let rest = try await h.call("GET", "/v1/rules/stats?sort=precision&limit=1&cursor=\(cursor)", as: h.moderator).json ?? [:]
        #expect((rest["stats"] as? [[String: Any]])?.first?["rule_id"] as? String == other)
        #expect(rest["next_cursor"] is NSNull)
        // A period before the hits holds none of them.
        let before = try await h.call("GET", "/v1/rules/\(ruleID)/stats?until=2020-01-01T00:00:00Z", as: h.moderator).json ?? [:]
        #expect(before["hits"] as? Int == 0)
        #expect(before["messages_reviewed"] as? Int == 0)
        #expect(try await h.call("GET", "/v1/rules/stats?sort=best", as: h.moderator).status == 400)
    }

    @Test("a flood of 20 identical messages is caught at the threshold and not before")
    func identicalFlood() async throws {
        let h = try await Harness()
        _ = try await h.rule(["kind": "flood", "action": "bounce", "params": ["threshold": 20, "window_seconds": 60, "similarity": "identical"]])
        let flooder = h.user("flooder")
        var states: [String] = []
        for _ in 1...20 { states.append(try await h.state("JOIN MY SERVER NOW", as: flooder)) }
        #expect(states.prefix(19).allSatisfy { $0 == "delivered" }, "\(states)")
        #expect(states.last == "bounced")
        // Normalization makes case and look-alikes no escape; another user is counted apart.
        #expect(try await h.state("join my server now", as: flooder) == "bounced")
        #expect(try await h.state("JOIN MY SERVER NOW", as: h.user("bystander")) == "delivered")
    }

    @Test("a flood of 20 lightly varied messages is caught at the threshold and not before")
    func similarFlood() async throws {
        let h = try await Harness()
        let ruleID = try await h.rule(["kind": "flood", "action": "bounce", "params": ["threshold": 20, "window_seconds": 60, "similarity": "similar"]])
        let flooder = h.user("flooder")
        // A few characters changed, added or reordered each time.
        let texts = (1...20).map { index -> String in
            switch index % 4 {
            case 0: "Free nitro giveaway, click the link in my bio \(index)"
            case 1: "free nitro giveaway!! click the link in my bio #\(index)"
            case 2: "Free nitro give-away, click the link in my bio now \(index)"
            default: "click the link in my bio, free nitro giveaway \(index)"
            }
        }
        var states: [String] = []
        for text in texts { states.append(try await h.state(text, as: flooder)) }
        #expect(states.prefix(19).allSatisfy { $0 == "delivered" }, "\(states)")
        #expect(states.last == "bounced")
        let bounced = try await h.send("free nitro giveaway, click the link in my bio 21", as: flooder)
        let rule = try #require(((bounced["moderation"] as? [String: Any])?["rules"] as? [[String: Any]])?.first)
        #expect(rule["id"] as? String == ruleID)
        #expect(rule["kind"] as? String == "flood")
    }

    @Test("innocent repetition is not a flood at sensible thresholds, nor different messages")
    func innocentRepetition() async throws {
        let h = try await Harness()
        _ = try await h.rule(["kind": "flood", "action": "bounce", "params": ["threshold": 5, "window_seconds": 60, "similarity": "similar"]])
        let chatty = h.user("chatty")
        var states: [String] = []
        for text in ["ok", "lol", "gg", "ok", "lol", "gg", "ok", "lol", "gg", "okk", "lol!", "gg wp"] {
            states.append(try await h.state(text, as: chatty))
        }
        let conversation = [
            "how was the match yesterday?", "did you see the second half", "the keeper was amazing honestly",
            "are you coming to the game on friday", "i can drive if you want", "let me know by tonight",
        ]
        for text in conversation { states.append(try await h.state(text, as: chatty)) }
        #expect(states.allSatisfy { $0 == "delivered" }, "\(states)")
    }

    @Test("mentions and links rules count within a message, and links within the sender's window")
    func mentionsAndLinks() async throws {
        let h = try await Harness()
        _ = try await h.rule(["kind": "mentions", "action": "bounce", "params": ["max": 3]])
        _ = try await h.rule(["kind": "links", "action": "bounce", "params": ["max": 2, "window_seconds": 60]])
        let user = h.user("poster")
        #expect(try await h.state("hey @ana @bo @cy, and @ana again", as: user) == "delivered")
        let crowded = try await h.send("hey @ana @bo @cy @dee", as: user)
        #expect(crowded["state"] as? String == "bounced")
        let spans = ((crowded["moderation"] as? [String: Any])?["rules"] as? [[String: Any]])?.first?["matched"] as? [[String: Any]]
        #expect(spans?.map { $0["text"] as? String } == ["@ana", "@bo", "@cy", "@dee"])
        #expect(try await h.state("mail me at someone@example.com", as: h.user("mailer")) == "delivered")

        let linker = h.user("linker")
        #expect(try await h.state("see https://example.com/a and www.example.org", as: linker) == "delivered")
        // A third link within the window is one too many, in a message of one.
        #expect(try await h.state("also example.net/page", as: linker) == "bounced")
        #expect(try await h.state("three in one: a.com b.com c.com", as: h.user("other")) == "bounced")
        #expect(try await h.state("no links here, e.g. this", as: linker) == "delivered")
    }

    @Test("exempt_roles spares those roles, and new_users_only_seconds spares users seen before")
    func senderConditions() async throws {
        let h = try await Harness()
        let veteran = h.user("veteran")
        #expect(try await h.state("hello everyone", as: veteran) == "delivered")
        _ = try await h.rule(["kind": "word", "pattern": "invite", "action": "bounce", "exempt_roles": ["moderator", "admin"]])
        _ = try await h.rule(["kind": "word", "pattern": "discord", "action": "bounce", "new_users_only_seconds": 1])
        #expect(try await h.state("an invite for you", as: veteran) == "bounced")
        #expect(try await h.state("an invite for you", as: h.moderator) == "delivered")
        try await Task.sleep(for: .milliseconds(1200))
        #expect(try await h.state("join my discord", as: veteran) == "delivered", "a user first seen over a second ago")
        #expect(try await h.state("join my discord", as: h.user("newcomer")) == "bounced", "a user first seen now")

        let invalid = try await h.call("POST", "/v1/rules", as: h.admin,
                                       body: #"{"kind":"word","pattern":"x","action":"flag","exempt_roles":["owner"]}"#)
        #expect(invalid.status == 400)
    }

    /// Hand-worked: six messages in two channels, one already flagged by a rule in force; two of
    /// the candidate's matches reviewed (one removed, one dismissed).
    @Test("a dry run tells what candidate rules would change, with samples and precision, and changes nothing")
    func dryRun() async throws {
        let h = try await Harness()
        _ = try await h.rule(["kind": "word", "pattern": "spam", "action": "flag"])
        let author = h.user("author")
        var ids: [String: String] = [:]
        for (text, channel) in [("hello world", "general"), ("buy pills now", "general"), ("spam and pills", "general"),
                                ("more pills here", "general"), ("pills in another room", "other"), ("nothing to see", "general")] {
            ids[text] = try #require(try await h.send(text, as: author, channel: channel)["id"] as? String)
        }
        for (text, decision) in [("buy pills now", "remove_message"), ("more pills here", "dismiss")] {
            let flagged = try await h.call("POST", "/v1/messages/\(ids[text]!)/flag", as: h.user("reporter"),
                                           body: #"{"reason":"spam"}"#)
            #expect(flagged.status == 201)
            #expect(try await h.call("POST", "/v1/messages/\(ids[text]!)/review", as: h.moderator,
                                     body: try Harness.body(["decision": decision])).status == 200)
        }
        func dryRun(_ body: [String: Any]) async throws -> ServiceHarness.Reply {
            try await h.call("POST", "/v1/rules/dry-run", as: h.moderator, body: try Harness.body(body))
        }
        let response = try await dryRun(["rules": [["kind": "word", "pattern": "pills", "action": "bounce"],
                                             ["kind": "word", "pattern": "world", "action": "flag", "mode": "observe"]]])
        #expect(response.status == 200, "\(response.text)")
        let report = try #require(response.json)
        #expect(report["scanned"] as? Int == 6)
        #expect(report["matched"] as? Int == 5)
        // "buy pills now" was removed by its review; the other three were delivered.
        #expect(report["changes"] as? [String: Int] == ["delivered->bounced": 3, "removed->bounced": 1])
        #expect(report["confirmed"] as? Int == 1)
        #expect(report["dismissed"] as? Int == 1)
        #expect(report["precision"] as? Double == 0.5)
        let samples = try #require(report["samples"] as? [[String: Any]])
        #expect(samples.count == 5)
        // Newest first, each with its matches.
        #expect(samples.first?["message_id"] as? String == ids["pills in another room"])
        #expect((samples.first?["matched"] as? [[String: Any]])?.first?["text"] as? String == "pills")
        #expect(samples.last?["message_id"] as? String == ids["hello world"])
        #expect(samples.last?["action"] as? String == "none")
        #expect(samples.first(where: { $0["message_id"] as? String == ids["spam and pills"] })?["action"] as? String == "bounce")

        // Filters and limits.
        let channel = try #require(try await dryRun(["rules": [["kind": "word", "pattern": "pills", "action": "bounce"]], "channel_id": "other"]).json)
        #expect(channel["scanned"] as? Int == 1)
        let limited = try #require(try await dryRun(["rules": [["kind": "word", "pattern": "pills", "action": "bounce"]], "limit": 2]).json)
        #expect(limited["scanned"] as? Int == 2)
        let later = try #require(try await dryRun(["rules": [["kind": "word", "pattern": "pills", "action": "bounce"]],
                                             "since": "2999-01-01T00:00:00Z"]).json)
        #expect(later["scanned"] as? Int == 0)
        // An allow candidate takes back what a rule in force matched.
        let allowed = try #require(try await dryRun(["rules": [["kind": "allow", "pattern": "spam"]]]).json)
        #expect(allowed["matched"] as? Int == 1)
        #expect((allowed["changes"] as? [String: Int])?.isEmpty == true, "a flag delivers either way")

        // Nothing changed: the rules are as they were, and so are the messages.
        let rules = try await h.call("GET", "/v1/rules", as: h.moderator).json?["rules"] as? [[String: Any]]
        #expect(rules?.count == 1)
        #expect(try await h.asModerator(ids["more pills here"]!)["state"] as? String == "delivered")

        for (body, status) in [(#"{"rules":[]}"#, 400), (#"{"rules":[{"kind":"word","pattern":"x","action":"bounce"}],"limit":0}"#, 400),
                               (#"{"rules":[{"kind":"word","pattern":"x","action":"bounce"}],"limit":1000001}"#, 400),
                               (#"{"rules":[{"kind":"regex","pattern":"(a)\\1","action":"bounce"}]}"#, 422)] {
            let refused = try await h.call("POST", "/v1/rules/dry-run", as: h.moderator, body: body)
            #expect(refused.status == status, "\(body): \(refused.text)")
        }
        #expect(try await h.call("POST", "/v1/rules/dry-run", as: author,
                                 body: #"{"rules":[{"kind":"word","pattern":"x","action":"bounce"}]}"#).status == 403)
    }

    @Test("dry runs asked for at once: one runs, the others are refused before their candidates are compiled, and other requests are answered meanwhile")
    func dryRunsAtOnce() async throws {
        let h = try await Harness()
        let author = h.user("author")
        for index in 0..<50 { _ = try await h.send("message number \(index) with words", as: author) }
        // A hundred regexes each, every one compiled when checked.
        let candidates = (0..<100).map { ["kind": "regex", "pattern": "\\w{1,60}word\($0)\\d{2,40}[a-z]{3,30}x", "action": "flag"] }
        let body = try Harness.body(["rules": candidates, "limit": 1000])
        let moderator = h.moderator
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let response = try await h.call("POST", "/v1/rules/dry-run", as: moderator, body: body)
                    if response.status == 429 { #expect(response.json?["code"] as? String == "dry_run_busy") }
                    return response.status
                }
            }
            // Others are served while the dry run compiles and scans.
            let me = try await h.call("GET", "/v1/me", as: author)
            #expect(me.status == 200)
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        // Compiling a hundred regexes takes far longer than sending four requests: the others
        // meet the one under way (each would run alone, one after another, on a slow host).
        #expect(answered.allSatisfy { $0 == 200 || $0 == 429 }, "\(answered)")
        #expect(answered.contains(200) && answered.contains(429), "\(answered)")
    }

    @Test("rate rules' settings are checked")
    func rateRuleValidation() async throws {
        let h = try await Harness()
        for body in [
            #"{"kind":"flood","action":"bounce"}"#,
            #"{"kind":"flood","action":"bounce","params":{"threshold":1,"window_seconds":60}}"#,
            #"{"kind":"flood","action":"bounce","params":{"threshold":5}}"#,
            #"{"kind":"flood","action":"bounce","params":{"threshold":5,"window_seconds":99999}}"#,
            #"{"kind":"mentions","action":"bounce","params":{"max":-1}}"#,
            #"{"kind":"mentions","action":"bounce","params":{"max":3,"threshold":2}}"#,
            #"{"kind":"word","pattern":"x","action":"bounce","params":{"max":3}}"#,
            #"{"kind":"links","action":"bounce","params":{"max":3,"window_seconds":0}}"#,
        ] {
            let response = try await h.call("POST", "/v1/rules", as: h.admin, body: body)
            #expect(response.status == 400, "\(body): \(response.text)")
        }
        let created = try await h.call("POST", "/v1/rules", as: h.admin,
                                       body: #"{"kind":"links","action":"flag","params":{"max":3}}"#)
        #expect(created.status == 201)
        #expect(created.json?["params"] as? [String: Int] == ["max": 3])
        #expect(created.json?["pattern"] as? String == "")
    }
}
