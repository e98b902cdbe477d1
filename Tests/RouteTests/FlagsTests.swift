import BouncerKit
import Foundation
import Testing
import TestSupport

@Suite struct FlagsTests {
    typealias Harness = ServiceHarness

    static func flag(_ h: Harness, _ id: String, as user: String, reason: String = "spam", details: String? = nil) async throws -> ServiceHarness.Reply {
        var body: [String: Any] = ["reason": reason]
        if let details { body["details"] = details }
        return try await h.call("POST", "/v1/messages/\(id)/flag", as: user,
                                body: String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
    }

    @Test func usersFlagOnceWithdrawAndFlagAgain() async throws {
        let h = try await ServiceHarness()
        _ = try await h.send("buy my stuff", id: "m1")
        func actions() async throws -> [String] {
            try await h.call("GET", "/v1/messages/m1/actions", as: "bob").decodedList("actions", of: MessageAction.self).map(\.id)
        }
        #expect(try await actions() == ["flag"])
        let first = try await Self.flag(h, "m1", as: "bob", details: "looks like spam")
        #expect(first.status == 201)
        let flag = try first.decoded(Flag.self)
        #expect(flag.reporterID == "bob" && flag.state == "open" && flag.reason == .spam)
        #expect(flag.details == "looks like spam" && flag.channelID == "messaging:general" && flag.messageID == "m1")
        let again = try await Self.flag(h, "m1", as: "bob", reason: "other")
        #expect(again.status == 200)
        #expect(try again.decoded(Flag.self) == flag, "the open flag, as it was filed")
        #expect(try await Self.flag(h, "m1", as: "alice").json?["code"] as? String == "own_message")
        #expect(try await Self.flag(h, "m1", as: "mod", reason: "not_a_reason").status == 400)
        #expect(try await Self.flag(h, "m1", as: "mod", details: String(repeating: "x", count: 1001)).status == 400)
        #expect(try await Self.flag(h, "nothing", as: "bob").status == 404)

        #expect(try await actions() == [], "already flagged")

        #expect(try await h.call("DELETE", "/v1/messages/m1/flag", as: "bob").status == 204)
        #expect(try await h.call("DELETE", "/v1/messages/m1/flag", as: "bob").status == 404)
        let renewed = try await Self.flag(h, "m1", as: "bob")
        #expect(renewed.status == 201)
        #expect(try renewed.decoded(Flag.self).id != flag.id)
    }

    /// An erased message takes its flags, its place in the review queue and its revisions with it:
    /// nothing is left open that no moderator could ever resolve.
    @Test func erasingAMessageTakesItsFlagsAndRevisionsWithIt() async throws {
        let h = try await ServiceHarness()
        _ = try await h.send("first words", id: "doomed")
        #expect(try await h.call("PATCH", "/v1/messages/doomed", as: "alice", body: #"{"text":"second words"}"#).status == 200)
        #expect(try await Self.flag(h, "doomed", as: "bob").status == 201)
        _ = try await h.send("stays", id: "kept")
        #expect(try await Self.flag(h, "kept", as: "bob").status == 201)
        #expect(try await Self.flaggedMessages(h.call("GET", "/v1/flags?state=open", as: "mod")) == ["doomed", "kept"])

        #expect(try await h.call("DELETE", "/v1/messages/doomed?hard=true", as: "root").status == 204)
        #expect(try await Self.flaggedMessages(h.call("GET", "/v1/flags", as: "mod")) == ["kept"])
        let queue = try await h.call("GET", "/v1/review-queue", as: "mod").json?["items"] as? [[String: Any]]
        #expect(queue?.compactMap { ($0["message"] as? [String: Any])?["id"] as? String } == ["kept"])
        #expect(try await h.call("GET", "/v1/messages/doomed/revisions", as: "mod").status == 404)
        // Sent again under the same id, it starts with no history.
        #expect(try await h.send("first words", id: "doomed").status == 201)
        #expect((try await h.call("GET", "/v1/messages/doomed/revisions", as: "mod").json?["revisions"] as? [Any])?.isEmpty == true)
    }

    /// The messages a page of flags names, as an app's moderation screen decodes them.
    static func flaggedMessages(_ page: ServiceHarness.Reply) throws -> [String] {
        try page.decodedList("flags", of: Flag.self).map(\.messageID).sorted()
    }

    @Test func concurrentFlagsFromManyUsersAreCountedExactly() async throws {
        let h = try await ServiceHarness()
        let users = (0..<24).map { "reporter\($0)" }
        h.addUsers(users)
        _ = try await h.send("controversial", id: "hot")
        try await withThrowingTaskGroup(of: Int.self) { group in
            // Every reporter twice at once: one flag each, however the two race.
            for user in users + users {
                group.addTask {
                    try await h.call("POST", "/v1/messages/hot/flag", as: user, body: #"{"reason":"harassment"}"#).status
                }
            }
            let statuses = try await group.reduce(into: [Int]()) { $0.append($1) }
            #expect(statuses.filter { $0 == 201 }.count == users.count)
            #expect(statuses.filter { $0 == 200 }.count == users.count)
        }
        let item = try #require((try await h.call("GET", "/v1/review-queue", as: "mod").json?["items"] as? [[String: Any]])?.first)
        #expect(item["flag_count"] as? Int == users.count)
        #expect((item["counts_by_reason"] as? [String: Int])?["harassment"] == users.count)
    }

    @Test func moderatorsListFilterAndReview() async throws {
        let h = try await ServiceHarness()
        h.addUsers(["carol", "dave"])
        _ = try await h.send("one flag", id: "one")
        _ = try await h.send("three flags", id: "three")
        _ = try await h.send("two flags", as: "bob", channel: "team:x", id: "two")
        _ = try await Self.flag(h, "one", as: "bob")
        for user in ["bob", "carol", "dave"] { _ = try await Self.flag(h, "three", as: user, reason: user == "bob" ? "spam" : "hate") }
        for user in ["carol", "dave"] { _ = try await Self.flag(h, "two", as: user) }

        func ids(_ path: String) async throws -> [String] {
            let response = try await h.call("GET", path, as: "mod")
            #expect(response.status == 200, "\(path)")
            return (response.json?["flags"] as? [[String: Any]])?.compactMap { $0["message_id"] as? String } ?? []
        }
        #expect(try await ids("/v1/flags?state=open").count == 6)
        #expect(try await ids("/v1/flags?state=open&reason=hate") == ["three", "three"])
        #expect(Set(try await ids("/v1/flags?reporter_id=bob")) == ["one", "three"])
        #expect(try await ids("/v1/flags?author_id=bob") == ["two", "two"])
        #expect(try await ids("/v1/flags?channel_id=team:x").count == 2)
        #expect(try await ids("/v1/flags?since=2000-01-01T00:00:00Z").count == 6)
        #expect(try await ids("/v1/flags?until=2000-01-01T00:00:00Z").isEmpty)
        #expect(try await h.call("GET", "/v1/flags?state=closed", as: "mod").status == 400)
        #expect(try await h.call("GET", "/v1/flags", as: "bob").status == 403)

        let queue = try #require(try await h.call("GET", "/v1/review-queue?state=open", as: "mod").json?["items"] as? [[String: Any]])
        #expect(queue.compactMap { ($0["message"] as? [String: Any])?["id"] as? String } == ["three", "two", "one"])
        #expect((queue.first?["counts_by_reason"] as? [String: Int]) == ["spam": 1, "hate": 2])
        let oldest = try await h.call("GET", "/v1/review-queue?sort=oldest", as: "mod").json?["items"] as? [[String: Any]]
        #expect(oldest?.compactMap { ($0["message"] as? [String: Any])?["id"] as? String } == ["one", "three", "two"])
        let paged = try await h.call("GET", "/v1/review-queue?limit=2", as: "mod").json
        let cursor = try #require(paged?["next_cursor"] as? String)
        let rest = try await h.call("GET", "/v1/review-queue?limit=2&cursor=\(cursor)", as: "mod").json?["items"] as? [[String: Any]]
        #expect(rest?.compactMap { ($0["message"] as? [String: Any])?["id"] as? String } == ["one"])
        #expect(try await h.call("GET", "/v1/review-queue?channel_id=team:x", as: "mod").json?["items"] as? [Any] != nil)
        // By reason: the messages with an open flag of it, in the queue's order.
        func queueIDs(_ path: String) async throws -> [String] {
            (try await h.call("GET", path, as: "mod").json?["items"] as? [[String: Any]])?.compactMap { ($0["message"] as? [String: Any])?["id"] as? String } ?? []
        }
        #expect(try await queueIDs("/v1/review-queue?reason=hate") == ["three"])
        #expect(try await queueIDs("/v1/review-queue?reason=spam&sort=oldest") == ["one", "three", "two"])
        #expect(try await queueIDs("/v1/review-queue?reason=spam&channel_id=team:x") == ["two"])
        #expect(try await queueIDs("/v1/review-queue?reason=violence").isEmpty)

        // Decisions resolve every open flag of the message at once.
        let dismissed = try await h.call("POST", "/v1/messages/one/review", as: "mod", body: #"{"decision":"dismiss","note":"fine"}"#)
        #expect(dismissed.status == 200)
        #expect(dismissed.json?["resolved"] as? Int == 1)
        let removed = try await h.call("POST", "/v1/messages/three/review", as: "mod", body: #"{"decision":"remove_message"}"#)
        #expect(removed.json?["resolved"] as? Int == 3)
        #expect((removed.json?["message"] as? [String: Any])?["state"] as? String == "removed")
        #expect(try await h.call("GET", "/v1/messages/three", as: "carol").status == 404)
        let banned = try await h.call("POST", "/v1/messages/two/review", as: "mod", body: #"{"decision":"ban_author","ban_duration_seconds":3600}"#)
        #expect(banned.status == 200)
        #expect(try await h.send("am I banned?", as: "bob").status == 403)
        let resolved = try await h.call("GET", "/v1/flags?state=resolved", as: "mod").json?["flags"] as? [[String: Any]]
        #expect(resolved?.count == 6)
        #expect(Set(resolved?.compactMap { $0["resolution"] as? String } ?? []) == ["dismissed", "message_removed", "author_banned"])
        #expect(resolved?.allSatisfy { $0["resolved_by"] as? String == "mod" && $0["resolved_at"] as? String != nil } == true)
        #expect((try await h.call("GET", "/v1/review-queue", as: "mod").json?["items"] as? [Any])?.isEmpty == true)
        #expect(try await h.call("POST", "/v1/messages/one/review", as: "mod", body: #"{"decision":"explode"}"#).status == 400)
        #expect(try await h.call("POST", "/v1/messages/nothing/review", as: "mod", body: #"{"decision":"dismiss"}"#).status == 404)

        let trail = try await h.call("GET", "/v1/audit?action=flag.review", as: "mod").json?["entries"] as? [[String: Any]]
        #expect(trail?.count == 3)
        #expect(trail?.first?["note"] as? String == "fine")
        #expect((try await h.call("GET", "/v1/audit?action=user.ban", as: "mod").json?["entries"] as? [Any])?.count == 1)
    }

    /// A review and a new flag at once: the flag is either resolved by the review or left open
    /// after it, never lost, and the queue agrees with the flags.
    /// `POST /v1/review-queue/decisions`: one decision for many messages, each its own review, with
    /// a result for each; a request that cannot be read as a whole decides nothing.
    @Test func oneDecisionForManyMessages() async throws {
        let h = try await ServiceHarness()
        h.addUsers(["carol"])
        for id in ["b1", "b2", "b3"] {
            _ = try await h.send("buy cheap pills \(id)", as: "bob", id: id)
            #expect(try await Self.flag(h, id, as: "carol").status == 201)
        }
        func decide(_ body: String, as user: String = "mod") async throws -> ServiceHarness.Reply {
            try await h.call("POST", "/v1/review-queue/decisions", as: user, body: body)
        }
        for refused in [#"{"message_ids":[],"decision":"dismiss"}"#,
                        #"{"message_ids":["b1","b1"],"decision":"dismiss"}"#,
                        #"{"message_ids":["b1","not an id!"],"decision":"dismiss"}"#,
                        #"{"message_ids":["b1"],"decision":"shout"}"#,
                        "{\"message_ids\":[" + (0..<101).map { "\"m\($0)\"" }.joined(separator: ",") + #"],"decision":"dismiss"}"#] {
            let reply = try await decide(refused)
            #expect(reply.status == 400, "\(refused.prefix(80)): \(reply.text)")
            #expect(reply.json?["code"] as? String == "invalid_field")
        }
        #expect(try await decide(#"{"message_ids":["b1"],"decision":"dismiss"}"#, as: "carol").status == 403)
        // Nothing was decided by the refused requests.
        #expect(try await Self.flaggedMessages(h.call("GET", "/v1/flags?state=open", as: "mod")).sorted() == ["b1", "b2", "b3"])

        let reply = try await decide(#"{"message_ids":["b1","gone","b3"],"decision":"remove_message","note":"a spam run"}"#)
        #expect(reply.status == 200, "\(reply.text)")
        let results = try #require(reply.json?["results"] as? [[String: Any]])
        #expect(results.map { $0["message_id"] as? String } == ["b1", "gone", "b3"])
        #expect(results.map { $0["status"] as? Int } == [200, 404, 200])
        #expect(results.map { $0["code"] as? String } == [nil, "message_not_found", nil])
        for id in ["b1", "b3"] {
            #expect(try await h.call("GET", "/v1/messages/\(id)", as: "mod").json?["state"] as? String == "removed")
        }
        #expect(try await h.call("GET", "/v1/messages/b2", as: "mod").json?["state"] as? String == "delivered")
        #expect(try await Self.flaggedMessages(h.call("GET", "/v1/flags?state=open", as: "mod")) == ["b2"])
    }

    @Test func aReviewRacingANewFlag() async throws {
        let h = try await ServiceHarness()
        let users = (0..<10).map { "late\($0)" }
        h.addUsers(users)
        for (round, user) in users.enumerated() {
            _ = try await h.send("round \(round)", id: "race\(round)")
            _ = try await Self.flag(h, "race\(round)", as: "bob")
            async let review = h.call("POST", "/v1/messages/race\(round)/review", as: "mod", body: #"{"decision":"dismiss"}"#)
            async let flag = h.call("POST", "/v1/messages/race\(round)/flag", as: user, body: #"{"reason":"spam"}"#)
            let (resolved, flagStatus) = try await (review.json?["resolved"] as? Int, flag.status)
            #expect(flagStatus == 201)
            let open = try await { () async throws -> [Int] in
                let flags = try await h.call("GET", "/v1/flags?state=open", as: "mod").json?["flags"] as? [[String: Any]] ?? []
                let queue = try await h.call("GET", "/v1/review-queue", as: "mod").json?["items"] as? [[String: Any]] ?? []
                return [flags.count, queue.reduce(0) { $0 + ($1["flag_count"] as? Int ?? 0) }]
            }()
            // Resolved both (flag first), or one and the late flag stays open (review first).
            #expect((resolved == 2 && open == [0, 0]) || (resolved == 1 && open == [1, 1]), "round \(round): \(String(describing: resolved)) \(open)")
            if open == [1, 1] {
                _ = try await h.call("POST", "/v1/messages/race\(round)/review", as: "mod", body: #"{"decision":"dismiss"}"#)
            }
        }
    }

    @Test func enoughFlagsHideAMessageUntilReviewed() async throws {
        let h = try await ServiceHarness()
        h.addUsers(["carol", "dave"])
        #expect(try await h.call("PATCH", "/v1/config", as: "root", body: #"{"auto_hide_flag_threshold":2}"#).status == 200)
        _ = try await h.send("questionable", id: "q")
        _ = try await Self.flag(h, "q", as: "bob")
        #expect(try await h.call("GET", "/v1/messages/q", as: "dave").status == 200, "one flag does not hide")
        _ = try await Self.flag(h, "q", as: "carol")
        #expect(try await h.call("GET", "/v1/messages/q", as: "dave").status == 404)
        let channel = try await h.call("GET", "/v1/channels/messaging:general/messages", as: "dave").json?["messages"] as? [Any]
        #expect(channel?.isEmpty == true)
        #expect(try await h.call("GET", "/v1/messages/q", as: "alice").status == 200, "the author still sees it")
        #expect(try await h.call("GET", "/v1/messages/q", as: "mod").status == 200)
        _ = try await h.call("POST", "/v1/messages/q/review", as: "mod", body: #"{"decision":"dismiss"}"#)
        #expect(try await h.call("GET", "/v1/messages/q", as: "dave").status == 200, "reviewed, it shows again")
    }
}
