import Foundation
import Testing
import TestSupport

/// `GET /v1/events`: every change that matters outside Bouncer, in commit order, from any point.
@Suite struct EventsTests {
    @Test func adminChangesAreEventsReadInOrderFromAnyPoint() async throws {
        let h = try await ServiceHarness()
        try await h.rule("pear", "bounce")
        #expect(try await h.call("PATCH", "/v1/config", as: "root", body: #"{"max_message_length":300}"#).status == 200)
        #expect(try await h.call("PUT", "/v1/localization/de", as: "root",
                                 body: #"{"strings":{"message.moderation.alert.title":"Wirklich?"}}"#).status == 200)
        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"reason":"spam"}"#).status == 201)
        #expect(try await h.call("DELETE", "/v1/users/bob/ban", as: "mod").status == 204)

        let page = try await h.call("GET", "/v1/events", as: "mod")
        #expect(page.status == 200)
        let body = try #require(page.json)
        let events = try #require(body["events"] as? [[String: Any]])
        #expect(events.compactMap { $0["type"] as? String }
                == ["rule.changed", "config.changed", "localization.changed", "user.banned", "user.unbanned"])
        let ids = events.compactMap { $0["id"] as? Int }
        #expect(ids == ids.sorted() && Set(ids).count == ids.count)
        #expect(body["next_after"] as? Int == ids.last)
        let rule = try #require(events[0]["data"] as? [String: Any])
        #expect(rule["change"] as? String == "created" && (rule["rule"] as? [String: Any])?["pattern"] as? String == "pear")
        #expect((events[1]["data"] as? [String: Any])?["max_message_length"] as? Int == 300)
        #expect((events[2]["data"] as? [String: Any])?["set"] as? [String] == ["message.moderation.alert.title"])
        #expect((events[3]["data"] as? [String: Any])?["reason"] as? String == "spam")
        #expect((events[4]["data"] as? [String: Any])?["user_id"] as? String == "bob")
        #expect(events.allSatisfy { ($0["created_at"] as? String)?.hasSuffix("Z") == true })

        // From a point on, of some types only; past the end, nothing and the same point.
        let bans = try await h.call("GET", "/v1/events?types=user.banned,user.unbanned&after=\(ids[0])", as: "mod").json
        #expect((bans?["events"] as? [[String: Any]])?.compactMap { $0["type"] as? String } == ["user.banned", "user.unbanned"])
        let last = try #require(ids.last)
        let empty = try await h.call("GET", "/v1/events?after=\(last)", as: "mod").json
        #expect((empty?["events"] as? [Any])?.isEmpty == true && empty?["next_after"] as? Int == last)
        #expect(try await h.call("GET", "/v1/events?limit=2", as: "mod").json.flatMap { $0["next_after"] as? Int } == ids[1])

        #expect(try await h.call("GET", "/v1/events?types=message.sent", as: "mod").status == 400)
        #expect(try await h.call("GET", "/v1/events?types=", as: "mod").status == 400)
        #expect(try await h.call("GET", "/v1/events?types=user.banned,", as: "mod").status == 400)
        #expect(try await h.call("GET", "/v1/events?after=-1", as: "mod").status == 400)
        #expect(try await h.call("GET", "/v1/events", as: "alice").status == 403)
    }

    /// Each moderated send, change, flag and review is an event whose `data` shows the message
    /// as a moderator sees it; a delivered message without moderation, and a retried send, are not.
    @Test func messagesFlagsAndReviewsAreEvents() async throws {
        let h = try await ServiceHarness()
        h.addUsers(["carol"])
        for (pattern, action) in [("pear", "bounce_flag"), ("plum", "remove"), ("fig", "shadow"), ("kiwi", "flag")] {
            try await h.rule(pattern, action)
        }
        #expect(try await h.call("PATCH", "/v1/config", as: "root", body: #"{"auto_hide_flag_threshold":2}"#).status == 200)
        #expect(try await h.send("hello", id: "h1").status == 201)
        #expect(try await h.send("a pear", id: "b1").status == 201)
        #expect(try await h.send("a pear", id: "b1").status == 200, "a retry")
        #expect(try await h.send("a plum", id: "r1").status == 201)
        #expect(try await h.send("a fig", id: "s1").status == 201)
        #expect(try await h.send("a kiwi", id: "f1").status == 201)
        #expect(try await h.call("POST", "/v1/messages/b1/resend", as: "alice").status == 200)
        #expect(try await h.call("PATCH", "/v1/messages/h1", as: "alice", body: #"{"text":"hello there"}"#).status == 200)
        #expect(try await FlagsTests.flag(h, "h1", as: "bob").status == 201)
        #expect(try await FlagsTests.flag(h, "h1", as: "bob").status == 200, "filed already: no event")
        #expect(try await FlagsTests.flag(h, "h1", as: "carol").status == 201)
        #expect(try await h.call("DELETE", "/v1/messages/h1/flag", as: "bob").status == 204)
        #expect(try await h.call("POST", "/v1/messages/h1/review", as: "mod", body: #"{"decision":"dismiss"}"#).status == 200)
        #expect(try await h.call("DELETE", "/v1/messages/f1", as: "alice").status == 204)

        let types = "message.bounced,message.removed,message.shadowed,message.flagged,message.hidden,message.resent,"
            + "message.edited,message.deleted,flag.withdrawn,review.decided"
        let body = try #require(try await h.call("GET", "/v1/events?types=\(types)", as: "mod").json)
        let events = try #require(body["events"] as? [[String: Any]])
        let data = events.map { $0["data"] as? [String: Any] ?? [:] }
        let told = zip(events, data).map { "\($0["type"] as? String ?? "?") \($1["message_id"] as? String ?? $1["id"] as? String ?? "?")" }
        #expect(told == ["message.bounced b1", "message.removed r1", "message.shadowed s1", "message.flagged f1", "message.resent b1",
                         "message.edited h1", "message.flagged h1", "message.flagged h1", "message.hidden h1", "flag.withdrawn h1",
                         "review.decided h1", "message.deleted f1"])
        guard told.count == 12 else { return }
        // The message as a moderator sees it: its state and verdict, and the flag that was filed.
        #expect(data[0]["state"] as? String == "bounced" && data[0]["moderation"] != nil && data[0]["alert"] == nil)
        #expect(data[2]["state"] as? String == "shadowed")
        let ruleFlag = data[3]["flag"] as? [String: Any]
        #expect(ruleFlag?["reporter_id"] as? String == "system" && ruleFlag?["rule_id"] is String)
        #expect(data[4]["state"] as? String == "delivered")
        #expect(data[5]["text"] as? String == "hello there" && data[5]["edited"] as? Bool == true)
        #expect((data[6]["flag"] as? [String: Any])?["reporter_id"] as? String == "bob")
        #expect((data[7]["flag"] as? [String: Any])?["reporter_id"] as? String == "carol")
        #expect(data[9]["reporter_id"] as? String == "bob" && data[9]["state"] as? String == "withdrawn" && data[9]["message_id"] as? String == "h1")
        #expect(data[10]["decision"] as? String == "dismiss" && data[10]["resolved"] as? Int == 1
                && data[10]["moderator_id"] as? String == "mod" && (data[10]["message"] as? [String: Any])?["id"] as? String == "h1")
        #expect(data[11]["state"] as? String == "deleted")
    }
}
