import Foundation
import Testing
import TestSupport

@Suite struct ModeratorsTests {
    @Test func bansRefuseShadowAndLiftThemselves() async throws {
        let h = try await ServiceHarness()
        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "alice", body: "{}").status == 403)
        let ban = try await h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"reason":"spamming"}"#)
        #expect(ban.status == 201)
        #expect(ban.json?["user_id"] as? String == "bob")
        #expect(ban.json?["expires_at"] is NSNull)
        let refused = try await h.send("hello", as: "bob")
        #expect(refused.status == 403)
        #expect(refused.json?["code"] as? String == "user_banned")
        let listed = try await h.call("GET", "/v1/bans", as: "mod").json?["bans"] as? [[String: Any]]
        #expect(listed?.compactMap { $0["user_id"] as? String } == ["bob"])
        #expect(try await h.call("DELETE", "/v1/users/bob/ban", as: "mod").status == 204)
        #expect(try await h.call("DELETE", "/v1/users/bob/ban", as: "mod").status == 404)
        #expect(try await h.send("hello again", as: "bob").status == 201)

        // A timed ban lifts itself. Three seconds: on three instances the ban is first put in
        // force on all of them (up to a second), and the send after it must still be in time.
        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"duration_seconds":3}"#).status == 201)
        #expect(try await h.send("too soon", as: "bob").status == 403)
        try await Task.sleep(for: .milliseconds(3300))
        #expect(try await h.send("after the ban", as: "bob").status == 201)
        #expect((try await h.call("GET", "/v1/bans", as: "mod").json?["bans"] as? [Any])?.isEmpty == true)
        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"duration_seconds":0}"#).status == 400)
        #expect(try await h.call("POST", "/v1/users/bad%20id/ban", as: "mod", body: "{}").status == 400)

        // A shadow ban: the author sees the message delivered, nobody else sees it.
        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"shadow":true}"#).status == 201)
        let shadowed = try await h.send("can anyone hear me", as: "bob", id: "shadow-1")
        #expect(shadowed.status == 201)
        #expect(shadowed.json?["state"] as? String == "delivered")
        #expect(try await h.call("GET", "/v1/messages/shadow-1", as: "alice").status == 404)
        #expect(try await h.call("GET", "/v1/messages/shadow-1", as: "mod").json?["state"] as? String == "shadowed")
    }

    @Test func moderatorsReadWhatOneUserSentInEveryState() async throws {
        let h = try await ServiceHarness()
        try await h.rule("grumblewort", "bounce")
        for index in 0..<9 {
            _ = try await h.send(index == 3 ? "grumblewort \(index)" : "alice \(index)", channel: index % 2 == 0 ? "team:a" : "team:b", id: "alice\(index)")
            _ = try await h.send("bob \(index)", as: "bob", channel: "team:a", id: "bob\(index)")
        }
        #expect(try await h.call("DELETE", "/v1/messages/alice5", as: "alice").status == 204)
        // Newest first, every channel, the bounced one too, the deleted one as its tombstone;
        // the cursor goes on to older ones.
        var ids: [String] = []
        var cursor: String?
        repeat {
            let page = try #require(try await h.call("GET", "/v1/users/alice/messages?limit=4" + (cursor.map { "&cursor=\($0)" } ?? ""), as: "mod").json)
            let messages = page["messages"] as? [[String: Any]] ?? []
            ids += messages.compactMap { $0["id"] as? String }
            if let bounced = messages.first(where: { $0["id"] as? String == "alice3" }) { #expect(bounced["state"] as? String == "bounced") }
            if let deleted = messages.first(where: { $0["id"] as? String == "alice5" }) { #expect(deleted["state"] as? String == "deleted") }
            cursor = page["next_cursor"] as? String
        } while cursor != nil && ids.count < 20
        #expect(ids == (0..<9).reversed().map { "alice\($0)" })
        #expect((try await h.call("GET", "/v1/users/nobody/messages", as: "mod").json?["messages"] as? [Any])?.isEmpty == true)
        #expect(try await h.call("GET", "/v1/users/alice/messages", as: "alice").status == 403)
        #expect(try await h.call("GET", "/v1/users/a%20b/messages", as: "mod").status == 400)
        // A cursor no page gave out is refused, not subtracted from: base64url of the least Int64.
        #expect(try await h.call("GET", "/v1/users/alice/messages?cursor=LTkyMjMzNzIwMzY4NTQ3NzU4MDg", as: "mod").status == 400)
        #expect(try await h.call("GET", "/v1/channels/team:a/messages?cursor=LTkyMjMzNzIwMzY4NTQ3NzU4MDg", as: "mod").status == 400)
        #expect(try await h.call("GET", "/v1/users/alice/messages", as: "mod").status == 200)
    }

    @Test func theAuditLogRecordsEveryModeratorAndAdminAction() async throws {
        let h = try await ServiceHarness()
        try await h.rule("darn", "bounce")
        #expect(try await h.call("PATCH", "/v1/config", as: "root", body: #"{"max_message_length":4000}"#).status == 200)
        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"reason":"rude"}"#).status == 201)
        #expect(try await h.call("DELETE", "/v1/users/bob/ban", as: "mod").status == 204)
        _ = try await h.send("a message", id: "gone")
        #expect(try await h.call("DELETE", "/v1/messages/gone", as: "mod").status == 204)
        #expect(try await h.call("PUT", "/v1/localization/fr", as: "root", body: #"{"strings":{"message.bounce.title":"Renvoyé"}}"#).status == 200)

        let entries = try #require(try await h.call("GET", "/v1/audit", as: "mod").json?["entries"] as? [[String: Any]])
        #expect(entries.compactMap { $0["action"] as? String }
            == ["rule.create", "config.update", "user.ban", "user.unban", "message.delete", "localization.update"])
        let ban = try #require(entries.first { $0["action"] as? String == "user.ban" })
        #expect(ban["actor_id"] as? String == "mod")
        #expect(ban["target_type"] as? String == "user" && ban["target_id"] as? String == "bob")
        #expect(ban["note"] as? String == "rude")
        #expect(ban["created_at"] as? String != nil)

        let bansOnly = try await h.call("GET", "/v1/audit?action=user.ban", as: "mod").json?["entries"] as? [[String: Any]]
        #expect(bansOnly?.count == 1)
        let byRoot = try await h.call("GET", "/v1/audit?actor_id=root", as: "mod").json?["entries"] as? [[String: Any]]
        #expect(byRoot?.count == 3)
        let paged = try await h.call("GET", "/v1/audit?limit=2", as: "mod").json
        #expect((paged?["entries"] as? [Any])?.count == 2)
        #expect(paged?["next_cursor"] as? String != nil)
        // Newest first, the cursor going on to older entries: the whole log, reversed.
        var newest: [String] = []
        var cursor: String?
        repeat {
            let page = try #require(try await h.call("GET", "/v1/audit?order=newest&limit=4" + (cursor.map { "&cursor=\($0)" } ?? ""), as: "mod").json)
            newest += (page["entries"] as? [[String: Any]])?.compactMap { $0["action"] as? String } ?? []
            cursor = page["next_cursor"] as? String
        } while cursor != nil && newest.count < 20
        #expect(newest == ["localization.update", "message.delete", "user.unban", "user.ban", "config.update", "rule.create"])
        #expect(try await h.call("GET", "/v1/audit?order=sideways", as: "mod").status == 400)
        #expect(try await h.call("GET", "/v1/audit?since=2000-01-01T00:00:00Z", as: "mod").status == 200)
        #expect(try await h.call("GET", "/v1/audit?since=yesterday", as: "mod").status == 400)
        #expect(try await h.call("GET", "/v1/audit", as: "alice").status == 403)
    }
}
