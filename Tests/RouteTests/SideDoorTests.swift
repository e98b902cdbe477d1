import BouncerDomain
import BouncerIdentity
import Foundation
import Testing
import TestSupport

/// The side doors an attacker tried: undoing moderation through a chat server's callback, an id
/// that turns a verdict into an error, a moderator deciding their own case, and strikes kept or
/// lost by the wrong decision. Each test failed on the build before its fix.
@Suite struct SideDoorTests {
    typealias Harness = ServiceHarness
    static let matrixSecret = "matrix-side-door-secret"
    static let streamKey = "stream-key"
    static let streamSecret = "stream-side-door-secret"

    static func harness() async throws -> Harness {
        let h = try await Harness { configuration in
            configuration.integrations.matrixSecret = matrixSecret
            configuration.integrations.streamAPIKey = streamKey
            configuration.integrations.streamAPISecret = streamSecret
        }
        h.addUsers(["mod2"], role: Role.moderator)
        return h
    }

    static func json(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    static func matrix(_ h: Harness, event: [String: Any]) async throws -> Harness.Reply {
        try await h.post("/v1/integrations/matrix/check_event_for_spam", body: try json(["event": event]),
                         headers: [("content-type", "application/json"), ("authorization", "Bearer \(matrixSecret)")])
    }

    static func matrixMessage(_ h: Harness, _ eventID: String, _ text: String, sender: String = "@alice:hs.test") async throws -> Harness.Reply {
        try await matrix(h, event: ["type": "m.room.message", "room_id": "!room:hs.test", "sender": sender, "event_id": eventID,
                                    "content": ["msgtype": "m.text", "body": text]])
    }

    static func redaction(_ h: Harness, of eventID: String, by sender: String, room: String = "!room:hs.test") async throws -> Harness.Reply {
        try await matrix(h, event: ["type": "m.room.redaction", "room_id": room, "sender": sender, "event_id": "$redaction",
                                    "content": ["redacts": eventID]])
    }

    static func stream(_ h: Harness, id: String, text: String, user: String) async throws -> Harness.Reply {
        let body = try json(["message": ["id": id, "text": text, "type": "regular"], "user": ["id": user],
                             "channel": ["cid": "messaging:general"], "request_info": [:] as [String: Any]])
        let signature = HMACSHA256.authenticate(Array(body.utf8), key: Array(streamSecret.utf8)).map { String(format: "%02x", $0) }.joined()
        return try await h.post("/v1/integrations/stream/before-message-send", body: body,
                                headers: [("content-type", "application/json"), ("x-signature", signature), ("x-api-key", streamKey)])
    }

    /// The messages of `user` as moderators read them, once there are at least `count` (a chat
    /// server's clean message is answered before its copy is committed).
    static func messages(_ h: Harness, of user: String, atLeast count: Int) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(20))
        let path = "/v1/users/\(user.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? user)/messages"
        while true {
            let messages = try await h.call("GET", path, as: "mod").json?["messages"] as? [[String: Any]] ?? []
            if messages.count >= count || ContinuousClock.now > deadline { return messages }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func state(_ h: Harness, _ id: String) async throws -> String? {
        let encoded = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id
        return try await h.call("GET", "/v1/messages/\(encoded)", as: "mod").json?["state"] as? String
    }

    static func queueIDs(_ h: Harness) async throws -> [String] {
        let items = try await h.call("GET", "/v1/review-queue", as: "mod").json?["items"] as? [[String: Any]] ?? []
        return items.compactMap { ($0["message"] as? [String: Any])?["id"] as? String }
    }

    // MARK: - Matrix

    @Test func aMatrixRedactionByAnyoneButTheAuthorChangesNothing() async throws {
        let h = try await Self.harness()
        try await h.rule("kiwi", "flag")
        // A flagged message is committed before it is answered, and waits in the review queue.
        #expect(try await Self.matrixMessage(h, "$kiwi", "a kiwi for you").status == 200)
        #expect(try await Self.queueIDs(h) == ["$kiwi"])

        // Another member's redaction (which Synapse will refuse after this callback), and one
        // from a room Bouncer has not seen: allowed, and the message stays as it is.
        for sender in ["@mallory:hs.test", "@alice:evil.test", "@room-admin:hs.test"] {
            let answer = try await Self.redaction(h, of: "$kiwi", by: sender)
            #expect(answer.status == 200 && answer.text == "{}", "\(sender): \(answer.text)")
        }
        // The author's own redaction sent in another room redacts nothing in Matrix, and nothing here.
        #expect(try await Self.redaction(h, of: "$kiwi", by: "@alice:hs.test", room: "!elsewhere:hs.test").status == 200)
        #expect(try await Self.state(h, "$kiwi") == "delivered")
        #expect(try await Self.queueIDs(h) == ["$kiwi"], "still waiting for Bouncer's moderators")
        let audit = try await h.call("GET", "/v1/audit?action=message.delete", as: "mod").json?["entries"] as? [[String: Any]]
        #expect(audit?.isEmpty == true, "nobody deleted it")

        // Its author's own redaction deletes Bouncer's copy.
        #expect(try await Self.redaction(h, of: "$kiwi", by: "@alice:hs.test").status == 200)
        #expect(try await Self.state(h, "$kiwi") == "deleted")
        let events = try await h.call("GET", "/v1/events?types=message.deleted", as: "mod").json?["events"] as? [[String: Any]] ?? []
        #expect(events.count == 1, "one delete, its author's")
    }

    @Test func aRedactionsSenderMustBeAMatrixUserID() async throws {
        let h = try await Self.harness()
        try await h.rule("kiwi", "flag")
        #expect(try await Self.matrixMessage(h, "$kept", "a kiwi again").status == 200)
        for sender in ["system", "admin", "", "@alice\u{7}:hs.test", "@alice", String(repeating: "a", count: 5000)] {
            let answer = try await Self.redaction(h, of: "$kept", by: sender)
            #expect(answer.status == 400, "\(sender.prefix(20)): \(answer.status)")
            #expect(answer.json?["errcode"] as? String == "M_INVALID_PARAM", "\(answer.text)")
            #expect(Set((answer.json ?? [:]).keys).isSubset(of: ["errcode", "error"]))
        }
        #expect(try await Self.state(h, "$kept") == "delivered")
        let audit = try await h.call("GET", "/v1/audit?action=message.delete", as: "mod").json?["entries"] as? [[String: Any]]
        #expect(audit?.isEmpty == true)
    }

    @Test func aTakenMatrixEventIDIsJudgedByItsNewText() async throws {
        let h = try await Self.harness()
        try await h.rule("darn", "bounce")
        #expect(try await Self.matrixMessage(h, "$taken", "hello there").status == 200)
        #expect(try await Self.messages(h, of: "@alice:hs.test", atLeast: 1).count == 1)

        // Another sender, a refused text: refused, never answered from alice's clean copy.
        let refused = try await Self.matrixMessage(h, "$taken", "oh darn it", sender: "@bob:hs.test")
        #expect(refused.status == 403, "\(refused.text)")
        #expect(refused.json?["errcode"] as? String == "M_FORBIDDEN")
        let bobs = try await Self.messages(h, of: "@bob:hs.test", atLeast: 1)
        #expect(bobs.map { $0["state"] as? String } == ["bounced"], "kept for moderators under an id of Bouncer's own")
        #expect(bobs.first?["id"] as? String != "$taken")

        // The same sender with another text: judged (refused) too.
        #expect(try await Self.matrixMessage(h, "$taken", "darn again").status == 403)
        // A clean text under the taken id: allowed, and stored, not silently dropped.
        #expect(try await Self.matrixMessage(h, "$taken", "a new clean text", sender: "@bob:hs.test").status == 200)
        let again = try await Self.messages(h, of: "@bob:hs.test", atLeast: 2)
        #expect(Set(again.compactMap { $0["text"] as? String }).contains("a new clean text"))
        #expect(try await h.call("GET", "/v1/messages/%24taken", as: "mod").json?["text"] as? String == "hello there", "alice's copy is untouched")
    }

    // MARK: - Stream

    @Test func aTakenStreamMessageIDNeverTurnsTheVerdictIntoAnError() async throws {
        let h = try await Self.harness()
        try await h.rule("darn", "bounce")
        #expect(try await h.send("mine first", as: "alice", id: "taken-id").status == 201)

        let refused = try await Self.stream(h, id: "taken-id", text: "oh darn it", user: "bob")
        #expect(refused.status == 200, "\(refused.text)")
        let message = refused.json?["message"] as? [String: Any]
        #expect(message?["type"] as? String == "error", "the verdict, not an id conflict")
        #expect(message?["id"] as? String == "taken-id", "fields the hook may not rewrite are left as they came")
        let bobs = try await Self.messages(h, of: "bob", atLeast: 1)
        #expect(bobs.map { $0["state"] as? String } == ["bounced"])
        #expect(bobs.first?["id"] as? String != "taken-id")

        let clean = try await Self.stream(h, id: "taken-id", text: "a clean one", user: "bob")
        #expect(clean.status == 200)
        #expect((clean.json?["message"] as? [String: Any])?["type"] as? String == "regular")
        let stored = try await Self.messages(h, of: "bob", atLeast: 2)
        #expect(stored.compactMap { $0["text"] as? String }.contains("a clean one"), "a clean text with a taken id is stored too")
        #expect(try await h.call("GET", "/v1/messages/taken-id", as: "mod").json?["text"] as? String == "mine first")
    }

    // MARK: - Own case

    @Test func nobodyDecidesTheirOwnCase() async throws {
        let h = try await Self.harness()
        try await h.rule("plumbus", "remove")
        // A moderator's own removed message, appealed.
        #expect(try await h.send("a plumbus", as: "mod", id: "mods-own").json?["state"] as? String == "removed")
        let messageAppeal = try await h.call("POST", "/v1/messages/mods-own/appeal", as: "mod", body: #"{"reason":"mine"}"#)
        #expect(messageAppeal.status == 201, "\(messageAppeal.text)")
        let messageAppealID = messageAppeal.json?["id"] as? String ?? ""
        let own = try await h.call("POST", "/v1/appeals/\(messageAppealID)/decision", as: "mod", body: #"{"decision":"overturn"}"#)
        #expect(own.status == 403)
        #expect(own.json?["code"] as? String == "own_case")
        #expect(try await Self.state(h, "mods-own") == "removed")
        let other = try await h.call("POST", "/v1/appeals/\(messageAppealID)/decision", as: "mod2", body: #"{"decision":"overturn"}"#)
        #expect(other.status == 200, "another moderator may: \(other.text)")

        // A ban an admin gave the moderator: neither appealed nor lifted by themselves.
        #expect(try await h.call("POST", "/v1/users/mod/ban", as: "root", body: #"{"reason":"abuse of power"}"#).status == 201)
        let lift = try await h.call("DELETE", "/v1/users/mod/ban", as: "mod")
        #expect(lift.status == 403)
        #expect(lift.json?["code"] as? String == "own_case")
        #expect(try await h.send("still banned?", as: "mod").status == 403)
        let banAppeal = try await h.call("POST", "/v1/me/ban/appeal", as: "mod", body: #"{"reason":"I was right"}"#)
        #expect(banAppeal.status == 201)
        let banAppealID = banAppeal.json?["id"] as? String ?? ""
        let ownBan = try await h.call("POST", "/v1/appeals/\(banAppealID)/decision", as: "mod", body: #"{"decision":"overturn"}"#)
        #expect(ownBan.json?["code"] as? String == "own_case")
        #expect(try await h.send("still banned?", as: "mod").status == 403)
        #expect(try await h.call("GET", "/v1/appeals?state=open", as: "mod2").json?["appeals"] as? [Any] != nil)
        #expect(try await h.call("POST", "/v1/appeals/\(banAppealID)/decision", as: "root", body: #"{"decision":"overturn"}"#).status == 200)
        #expect(try await h.send("free again", as: "mod").status == 201)
        // An admin lifting someone else's ban is no own case.
        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "mod").status == 201)
        #expect(try await h.call("DELETE", "/v1/users/bob/ban", as: "mod2").status == 204)
    }

    // MARK: - Strikes

    static func strikes(_ h: Harness, _ user: String) async throws -> [String] {
        let strikes = try await h.call("GET", "/v1/users/\(user)/strikes", as: "mod").json?["strikes"] as? [[String: Any]] ?? []
        return strikes.compactMap { $0["reason"] as? String }
    }

    static func remove(_ h: Harness, _ text: String, id: String, decision: String = "remove_message") async throws {
        #expect(try await h.send(text, as: "bob", id: id).status == 201)
        #expect(try await FlagsTests.flag(h, id, as: "alice", reason: "harassment").status == 201)
        let reviewed = try await h.call("POST", "/v1/messages/\(id)/review", as: "mod", body: #"{"decision":"\#(decision)"}"#)
        #expect(reviewed.status == 200, "\(reviewed.text)")
    }

    static func appealBanAndOverturn(_ h: Harness, as user: String = "bob") async throws {
        let filed = try await h.call("POST", "/v1/me/ban/appeal", as: user, body: #"{"reason":"please"}"#)
        #expect(filed.status == 201, "\(filed.text)")
        let decided = try await h.call("POST", "/v1/appeals/\(filed.json?["id"] as? String ?? "")/decision", as: "mod2",
                                       body: #"{"decision":"overturn"}"#)
        #expect(decided.status == 200, "\(decided.text)")
    }

    @Test func anOverturnedBanAppealTakesBackOnlyTheStrikeItsDecisionMade() async throws {
        let h = try await Self.harness()
        // A removal (one strike), then a manual ban: overturning the ban takes back no strike.
        try await Self.remove(h, "nasty one", id: "removed-1")
        #expect(try await Self.strikes(h, "bob") == ["message_removed"])
        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"reason":"manual"}"#).status == 201)
        try await Self.appealBanAndOverturn(h)
        #expect(try await Self.strikes(h, "bob") == ["message_removed"], "the removal's strike is not the ban's")

        // A review's ban_author: its strike and its ban; overturning the ban takes back that strike.
        try await Self.remove(h, "nasty two", id: "banned-2", decision: "ban_author")
        #expect(try await Self.strikes(h, "bob") == ["author_banned", "message_removed"])
        #expect(try await h.send("am I banned?", as: "bob").status == 403)
        try await Self.appealBanAndOverturn(h)
        #expect(try await Self.strikes(h, "bob") == ["message_removed"])
        #expect(try await h.send("free again", as: "bob").status == 201)
    }

    @Test func aStrikeBanIsLiftedWhenItsStrikesNoLongerReachTheStep() async throws {
        let h = try await Self.harness()
        let policy = #"{"strike_policy":{"window_days":30,"steps":[{"strikes":2,"ban_seconds":null}]}}"#
        #expect(try await h.call("PATCH", "/v1/config", as: "root", body: policy).status == 200)
        try await Self.remove(h, "nasty one", id: "s1")
        try await Self.remove(h, "nasty two", id: "s2")
        #expect(try await h.send("am I banned?", as: "bob").status == 403, "two strikes reach the step")

        // Overturning one removal takes back its strike: one strike no longer reaches the step.
        let filed = try await h.call("POST", "/v1/messages/s2/appeal", as: "bob", body: #"{"reason":"a quote"}"#)
        let decided = try await h.call("POST", "/v1/appeals/\(filed.json?["id"] as? String ?? "")/decision", as: "mod2",
                                       body: #"{"decision":"overturn"}"#)
        #expect(decided.status == 200, "\(decided.text)")
        #expect(try await Self.strikes(h, "bob") == ["message_removed"])
        #expect(try await h.send("free again", as: "bob").status == 201)
        #expect(try await h.call("GET", "/v1/bans", as: "mod").json?["bans"] as? [Any] != nil)
        #expect((try await h.call("GET", "/v1/bans", as: "mod").json?["bans"] as? [Any])?.isEmpty == true)
        let events = try await h.call("GET", "/v1/events?types=user.unbanned", as: "mod").json?["events"] as? [[String: Any]] ?? []
        let lifted = events.compactMap { $0["data"] as? [String: Any] }
        #expect(lifted.count == 1)
        #expect(lifted.first?["user_id"] as? String == "bob")
        #expect(lifted.first?["reason"] as? String == "strikes")
        let audit = try await h.call("GET", "/v1/audit?action=user.unban", as: "mod").json?["entries"] as? [[String: Any]] ?? []
        #expect(audit.map { $0["actor_id"] as? String } == ["system"])

        // A moderator's ban is not the policy's: taking a strike back leaves it in force.
        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "mod").status == 201)
        let other = try await h.call("POST", "/v1/messages/s1/appeal", as: "bob", body: #"{"reason":"also a quote"}"#)
        #expect(try await h.call("POST", "/v1/appeals/\(other.json?["id"] as? String ?? "")/decision", as: "mod2",
                                 body: #"{"decision":"overturn"}"#).status == 200)
        #expect(try await h.send("banned by a moderator", as: "bob").status == 403)
    }

    // MARK: - Review and ban

    @Test func aBanAuthorReviewWritesTheBanWithTheReview() async throws {
        let h = try await Self.harness()
        try await Self.remove(h, "nasty", id: "reviewed", decision: "ban_author")
        let bans = try await h.call("GET", "/v1/bans", as: "mod").json?["bans"] as? [[String: Any]] ?? []
        #expect(bans.map { $0["user_id"] as? String } == ["bob"])
        #expect(bans.first?["created_by"] as? String == "mod")
        #expect(try await Self.strikes(h, "bob") == ["author_banned"])
        let banned = try await h.call("GET", "/v1/events?types=user.banned,review.decided", as: "mod").json?["events"] as? [[String: Any]] ?? []
        #expect(Set(banned.compactMap { $0["type"] as? String }) == ["user.banned", "review.decided"])
        let audit = try await h.call("GET", "/v1/audit?action=user.ban", as: "mod").json?["entries"] as? [[String: Any]] ?? []
        #expect(audit.map { $0["actor_id"] as? String } == ["mod"])
    }

    // MARK: - Tombstones

    @Test func aDeletedMessageIsNotFlaggable() async throws {
        let h = try await Self.harness()
        #expect(try await h.send("soon gone", as: "bob", id: "gone").status == 201)
        #expect(try await h.call("DELETE", "/v1/messages/gone", as: "bob").status < 300)
        let flagged = try await FlagsTests.flag(h, "gone", as: "alice")
        #expect(flagged.status == 404, "\(flagged.text)")
        #expect(flagged.json?["code"] as? String == "message_not_found")
    }
}
