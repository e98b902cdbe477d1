import Foundation
import Testing
import TestSupport

/// Appeals and strikes end to end: authors contest a bounce, a removal or a ban; moderators
/// decide; confirmed violations count as strikes, and a strike policy bans by itself.
@Suite struct AppealsTests {
    typealias Harness = ServiceHarness

    static func appeal(_ h: Harness, _ id: String, as user: String = "bob", reason: String = "It was a joke between friends.") async throws -> ServiceHarness.Reply {
        try await h.call("POST", "/v1/messages/\(id)/appeal", as: user, body: try json(["reason": reason]))
    }

    static func decide(_ h: Harness, _ appealID: String, _ decision: String, note: String? = nil) async throws -> ServiceHarness.Reply {
        var body: [String: Any] = ["decision": decision]
        if let note { body["note"] = note }
        return try await h.call("POST", "/v1/appeals/\(appealID)/decision", as: "mod", body: try json(body))
    }

    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    static func ruleID(_ h: Harness, _ pattern: String, _ action: String) async throws -> String {
        let response = try await h.call("POST", "/v1/rules", as: "root", body: #"{"kind":"word","pattern":"\#(pattern)","action":"\#(action)"}"#)
        precondition(response.status == 201, "rule \(pattern): \(response.text)")
        return response.json?["id"] as? String ?? ""
    }

    static func strikes(_ h: Harness, _ user: String) async throws -> (active: Int, reasons: [String]) {
        let body = try await h.call("GET", "/v1/users/\(user)/strikes", as: "mod").json
        let strikes = body?["strikes"] as? [[String: Any]] ?? []
        return (body?["active"] as? Int ?? -1, strikes.compactMap { $0["reason"] as? String })
    }

    static func events(_ h: Harness, _ type: String) async throws -> [[String: Any]] {
        let events = try await h.call("GET", "/v1/events?types=\(type)&limit=200", as: "mod").json?["events"] as? [[String: Any]] ?? []
        return events.compactMap { $0["data"] as? [String: Any] }
    }

    @Test func anOverturnedRemovalIsDeliveredAgainAndItsRuleHitCountsAsDismissed() async throws {
        let h = try await ServiceHarness()
        let rule = try await Self.ruleID(h, "plumbus", "remove")
        #expect(try await h.send("a plumbus for you", as: "bob", id: "removed").json?["state"] as? String == "removed")
        #expect(try await h.call("GET", "/v1/messages/removed", as: "alice").status == 404)

        let filed = try await Self.appeal(h, "removed")
        #expect(filed.status == 201, "\(filed.text)")
        let appeal = filed.json ?? [:]
        let appealID = appeal["id"] as? String ?? ""
        #expect(appeal["target_type"] as? String == "message")
        #expect(appeal["target_id"] as? String == "removed")
        #expect(appeal["user_id"] as? String == "bob")
        #expect(appeal["state"] as? String == "open")
        #expect(appeal["reason"] as? String == "It was a joke between friends.")
        #expect(appeal["created_at"] is String)
        #expect(appeal.keys.contains("decided_by") && appeal["decided_by"] is NSNull)

        // Once only, by its author only.
        #expect(try await Self.appeal(h, "removed").json?["code"] as? String == "appeal_exists")
        #expect(try await Self.appeal(h, "removed").status == 409)
        #expect(try await Self.appeal(h, "removed", as: "alice").status == 404, "a message alice cannot see is not found")

        let mine = try await h.call("GET", "/v1/me/appeals", as: "bob").json?["appeals"] as? [[String: Any]]
        #expect(mine?.map { $0["id"] as? String } == [appealID])
        #expect((try await h.call("GET", "/v1/me/appeals", as: "alice").json?["appeals"] as? [Any])?.isEmpty == true)
        #expect(try await h.call("GET", "/v1/appeals", as: "bob").status == 403)

        let queue = try await h.call("GET", "/v1/appeals?state=open", as: "mod").json?["appeals"] as? [[String: Any]] ?? []
        #expect(queue.map { $0["id"] as? String } == [appealID])
        let message = queue.first?["message"] as? [String: Any]
        #expect(message?["id"] as? String == "removed")
        #expect(message?["moderation"] != nil, "moderators see the moderation")
        #expect(queue.first?["flags"] is [Any])
        #expect(queue.first?["revisions"] is [Any])

        let decided = try await Self.decide(h, appealID, "overturn", note: "A cartoon, not a slur.")
        #expect(decided.status == 200, "\(decided.text)")
        #expect(decided.json?["state"] as? String == "overturned")
        #expect(decided.json?["decided_by"] as? String == "mod")
        #expect(decided.json?["note"] as? String == "A cartoon, not a slur.")
        #expect((decided.json?["message"] as? [String: Any])?["state"] as? String == "delivered")
        #expect(try await Self.decide(h, appealID, "uphold").json?["code"] as? String == "appeal_decided")

        let seen = try await h.call("GET", "/v1/messages/removed", as: "alice")
        #expect(seen.status == 200)
        #expect(seen.json?["state"] as? String == "delivered")
        #expect(seen.json?["type"] as? String == "regular")
        #expect((try await h.call("GET", "/v1/appeals?state=open", as: "mod").json?["appeals"] as? [Any])?.isEmpty == true)
        #expect((try await h.call("GET", "/v1/appeals?state=overturned", as: "mod").json?["appeals"] as? [Any])?.count == 1)
        #expect(try await Self.appeal(h, "removed").json?["code"] as? String == "appeal_exists", "delivered now, and appealed once already")

        // The rule's hit counts as dismissed in its precision (hits are written in the background).
        let deadline = Date().addingTimeInterval(15)
        var stats: [String: Any] = [:]
        repeat {
            stats = try await h.call("GET", "/v1/rules/\(rule)/stats", as: "mod").json ?? [:]
            if stats["dismissed"] as? Int == 1 { break }
            try await Task.sleep(for: .milliseconds(100))
        } while Date() < deadline
        #expect(stats["dismissed"] as? Int == 1, "waited 15 s for the rule's dismissed review: \(stats)")

        // Events and audit.
        #expect(try await Self.events(h, "appeal.created").map { $0["id"] as? String } == [appealID])
        let decidedEvent = try await Self.events(h, "appeal.decided").first
        #expect(decidedEvent?["state"] as? String == "overturned")
        #expect((decidedEvent?["message"] as? [String: Any])?["id"] as? String == "removed")
        let audit = try await h.call("GET", "/v1/audit?action=appeal.decide", as: "mod").json?["entries"] as? [[String: Any]]
        #expect(audit?.first?["target_id"] as? String == appealID)
        #expect(audit?.first?["actor_id"] as? String == "mod")
    }

    @Test func onlyBouncedAndRemovedMessagesOfOnesOwnAreAppealable() async throws {
        let h = try await ServiceHarness()
        try await h.rule("darn", "bounce")
        try await h.rule("spamword", "shadow")
        #expect(try await h.send("darn it", as: "bob", id: "bounced").json?["state"] as? String == "bounced")
        #expect(try await h.send("hello there", as: "bob", id: "clean").status == 201)
        #expect(try await h.send("buy spamword", as: "bob", id: "shadowed").status == 201)

        for (id, user) in [("clean", "bob"), ("shadowed", "bob"), ("clean", "alice")] {
            let refused = try await Self.appeal(h, id, as: user)
            #expect(refused.status == 409, "\(id) by \(user)")
            #expect(refused.json?["code"] as? String == "not_appealable", "\(id) by \(user)")
        }
        #expect(try await Self.appeal(h, "nothing-here").status == 404)
        for reason in ["", "   ", String(repeating: "x", count: 1001)] {
            let bad = try await Self.appeal(h, "bounced", reason: reason)
            #expect(bad.status == 400, "reason of \(reason.count)")
            #expect(bad.json?["code"] as? String == "invalid_field")
        }
        #expect(try await h.call("POST", "/v1/messages/bounced/appeal", as: "bob", body: "{").status == 400)
        #expect(try await Self.appeal(h, "bounced", reason: String(repeating: "y", count: 1000)).status == 201)

        // An upheld bounce changes nothing and strikes nobody; an overturned one delivers it, with no flag.
        let appealID = (try await h.call("GET", "/v1/me/appeals", as: "bob").json?["appeals"] as? [[String: Any]])?.first?["id"] as? String ?? ""
        #expect(try await Self.decide(h, appealID, "overturn").status == 200)
        #expect(try await h.call("GET", "/v1/messages/bounced", as: "alice").json?["state"] as? String == "delivered")
        #expect((try await h.call("GET", "/v1/flags?author_id=bob", as: "mod").json?["flags"] as? [Any])?.isEmpty == true)
        #expect(try await Self.strikes(h, "bob").active == 0)
        #expect(try await Self.decide(h, "no-such-appeal", "uphold").status == 404)
        #expect(try await Self.decide(h, appealID, "maybe").status == 400)
    }

    @Test func aBannedUserMayAppealTheBanAndAnOverturnLiftsIt() async throws {
        let h = try await ServiceHarness()
        let none = try await h.call("POST", "/v1/me/ban/appeal", as: "bob", body: #"{"reason":"I am not banned"}"#)
        #expect(none.status == 404)
        #expect(none.json?["code"] as? String == "ban_not_found")

        // A shadow ban is not one its user knows of.
        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"shadow":true}"#).status == 201)
        #expect(try await h.call("POST", "/v1/me/ban/appeal", as: "bob", body: #"{"reason":"why?"}"#).status == 404)

        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"reason":"spam"}"#).status == 201)
        #expect(try await h.send("let me in", as: "bob").status == 403)
        let filed = try await h.call("POST", "/v1/me/ban/appeal", as: "bob", body: #"{"reason":"I was hacked"}"#)
        #expect(filed.status == 201, "\(filed.text)")
        #expect(filed.json?["target_type"] as? String == "ban")
        #expect(filed.json?["target_id"] as? String == "bob")
        #expect(try await h.call("POST", "/v1/me/ban/appeal", as: "bob", body: #"{"reason":"again"}"#).json?["code"] as? String == "appeal_exists")

        let queue = try await h.call("GET", "/v1/appeals", as: "mod").json?["appeals"] as? [[String: Any]] ?? []
        #expect(queue.count == 1)
        #expect((queue.first?["ban"] as? [String: Any])?["reason"] as? String == "spam")
        #expect(queue.first?["message"] is NSNull)

        let appealID = filed.json?["id"] as? String ?? ""
        let decided = try await Self.decide(h, appealID, "overturn")
        #expect(decided.status == 200)
        #expect(decided.json?["ban"] is NSNull, "the ban is lifted")
        #expect(try await h.send("thanks", as: "bob").status == 201)
        #expect(try await Self.events(h, "user.unbanned").last?["user_id"] as? String == "bob")
        #expect((try await h.call("GET", "/v1/bans", as: "mod").json?["bans"] as? [Any])?.isEmpty == true)
    }

    @Test func strikesBanByPolicyAndAnOverturnTakesOneBack() async throws {
        let h = try await ServiceHarness()
        #expect(try await h.call("GET", "/v1/config", as: "root").json?["strike_policy"] is NSNull, "off by default")
        for bad in [#"{"strike_policy":{"window_days":0,"steps":[{"strikes":1,"ban_seconds":60}]}}"#,
                    #"{"strike_policy":{"window_days":30,"steps":[]}}"#,
                    #"{"strike_policy":{"window_days":30,"steps":[{"strikes":2,"ban_seconds":60},{"strikes":2,"ban_seconds":null}]}}"#,
                    #"{"strike_policy":{"window_days":30,"steps":[{"strikes":2}]}}"#,
                    #"{"strike_policy":7}"#] {
            #expect(try await h.call("PATCH", "/v1/config", as: "root", body: bad).status == 400, "\(bad)")
        }

        // Without a policy strikes are recorded, and ban nobody.
        for id in ["one", "two"] {
            #expect(try await h.send("nasty \(id)", as: "bob", id: id).status == 201)
            #expect(try await FlagsTests.flag(h, id, as: "alice", reason: "harassment").status == 201)
            #expect(try await h.call("POST", "/v1/messages/\(id)/review", as: "mod", body: #"{"decision":"remove_message"}"#).status == 200)
        }
        #expect(try await Self.strikes(h, "bob") == (2, ["message_removed", "message_removed"]))
        let strike = (try await h.call("GET", "/v1/users/bob/strikes", as: "mod").json?["strikes"] as? [[String: Any]])?.first
        #expect(strike?["message_id"] as? String == "two", "newest first")
        #expect(strike?["expires_at"] is String)
        #expect(try await Self.strikes(h, "alice").active == 0)

        // A policy set now bans nobody by itself ...
        let policy = #"{"strike_policy":{"window_days":30,"steps":[{"strikes":5,"ban_seconds":null},{"strikes":2,"ban_seconds":3600}]}}"#
        let set = try await h.call("PATCH", "/v1/config", as: "root", body: policy)
        #expect(set.status == 200, "\(set.text)")
        let steps = (set.json?["strike_policy"] as? [String: Any])?["steps"] as? [[String: Any]]
        #expect(steps?.map { $0["strikes"] as? Int } == [2, 5], "steps are kept in order")
        #expect(steps?.last?["ban_seconds"] is NSNull)
        #expect(try await h.send("still here", as: "bob").status == 201)

        // ... the next strike does: by `system`, for the step's time.
        #expect(try await h.send("nasty three", as: "bob", id: "three").status == 201)
        #expect(try await FlagsTests.flag(h, "three", as: "alice", reason: "harassment").status == 201)
        #expect(try await h.call("POST", "/v1/messages/three/review", as: "mod", body: #"{"decision":"remove_message"}"#).status == 200)
        #expect(try await h.send("am I banned?", as: "bob").status == 403)
        let bans = try await h.call("GET", "/v1/bans", as: "mod").json?["bans"] as? [[String: Any]]
        #expect(bans?.first?["created_by"] as? String == "system")
        #expect(bans?.first?["reason"] as? String == "strikes")
        #expect(bans?.first?["expires_at"] is String, "the two-strike step bans for an hour")
        let banned = try await Self.events(h, "user.banned").last
        #expect(banned?["user_id"] as? String == "bob")
        #expect(banned?["reason"] as? String == "strikes")
        let audit = try await h.call("GET", "/v1/audit?actor_id=system", as: "mod").json?["entries"] as? [[String: Any]]
        #expect(audit?.first?["action"] as? String == "user.ban")
        #expect(audit?.first?["note"] as? String == "strikes")

        // Appeals stay open to a banned user; an overturn takes the message's strike back.
        let filed = try await Self.appeal(h, "three")
        #expect(filed.status == 201, "\(filed.text)")
        #expect(try await Self.decide(h, filed.json?["id"] as? String ?? "", "overturn").status == 200)
        #expect(try await Self.strikes(h, "bob").active == 2)
        #expect(try await h.call("GET", "/v1/messages/three", as: "alice").json?["state"] as? String == "delivered")

        // An upheld appeal of a reviewed removal is the same violation: no second strike.
        let again = try await Self.appeal(h, "two")
        #expect(try await Self.decide(h, again.json?["id"] as? String ?? "", "uphold").json?["state"] as? String == "upheld")
        #expect(try await Self.strikes(h, "bob").active == 2)

        #expect(try await h.call("PATCH", "/v1/config", as: "root", body: #"{"strike_policy":null}"#).json?["strike_policy"] is NSNull)
    }

    @Test func anUpheldAppealOfARulesRemovalIsAStrike() async throws {
        let h = try await ServiceHarness()
        #expect(try await h.call("PATCH", "/v1/config", as: "root",
                                 body: #"{"strike_policy":{"window_days":7,"steps":[{"strikes":1,"ban_seconds":60}]}}"#).status == 200)
        try await h.rule("plumbus", "remove")
        #expect(try await h.send("a plumbus", as: "bob", id: "ruled").json?["state"] as? String == "removed")
        #expect(try await Self.strikes(h, "bob").active == 0, "a rule's removal is not confirmed until a person says so")
        let filed = try await Self.appeal(h, "ruled")
        #expect(try await Self.decide(h, filed.json?["id"] as? String ?? "", "uphold").status == 200)
        #expect(try await Self.strikes(h, "bob") == (1, ["appeal_upheld"]))
        #expect(try await h.send("hello", as: "bob").status == 403, "one strike bans under this policy")
        let strike = (try await h.call("GET", "/v1/users/bob/strikes", as: "mod").json?["strikes"] as? [[String: Any]])?.first
        let created = strike?["created_at"] as? String ?? "", expires = strike?["expires_at"] as? String ?? ""
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let start = format.date(from: created), let end = format.date(from: expires) {
            #expect(abs(end.timeIntervalSince(start) - 7 * 86_400) < 1, "the policy's window")
        } else {
            Issue.record("strike times \(created) \(expires)")
        }
    }

    @Test func appealsFiledAtOnceAreKeptOnce() async throws {
        let h = try await ServiceHarness()
        try await h.rule("plumbus", "remove")
        #expect(try await h.send("a plumbus", as: "bob", id: "raced").status == 201)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<6 {
                group.addTask {
                    try await h.call("POST", "/v1/messages/raced/appeal", as: "bob", body: #"{"reason":"try \#(index)"}"#).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.sorted() == [201, 409, 409, 409, 409, 409], "\(statuses)")
        #expect((try await h.call("GET", "/v1/appeals", as: "mod").json?["appeals"] as? [Any])?.count == 1)
    }

    @Test func appealsAreRateLimitedPerUser() async throws {
        let h = try await ServiceHarness()
        try await h.rule("darn", "bounce")
        var statuses: [Int] = []
        for index in 0..<12 {
            #expect(try await h.send("darn \(index)", as: "bob", id: "b\(index)").status == 201)
            statuses.append(try await Self.appeal(h, "b\(index)").status)
        }
        #expect(statuses.prefix(10).allSatisfy { $0 == 201 }, "\(statuses)")
        let limited = try await Self.appeal(h, "b11")
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") != nil)
        #expect(try await h.send("darn alice", as: "alice", id: "a1").status == 201)
        #expect(try await Self.appeal(h, "a1", as: "alice").status == 201, "each user has their own allowance")
    }
}
