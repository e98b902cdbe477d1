import BouncerDomain
import Testing

/// The message routes through the whole service in-process (`ServiceHarness`): what a verdict does
/// to a message, who sees it as what, and the lists' pages.
@Suite struct MessageRouteTests {
    static let admin = ("root", Role.admin)
    static let moderator = ("mod", Role.moderator)
    static let alice = ("alice", Role.user)
    static let bob = ("bob", Role.user)

    static func addRule(_ service: ServiceHarness, _ pattern: String, _ action: RuleAction) async throws {
        let reply = try await service.request("POST", "/v1/rules", as: admin, json: ["kind": "word", "pattern": pattern, "action": action.rawValue])
        #expect(reply.status == 201, "\(reply.text)")
    }

    static func send(_ service: ServiceHarness, _ text: String, id: String, as user: (String, Role) = alice,
                     headers: [(String, String)] = []) async throws -> ServiceHarness.Reply {
        try await service.request("POST", "/v1/channels/messaging:room/messages", as: user, json: ["id": id, "text": text], headers: headers)
    }

    @Test func aBounceFlagMessageSentAnywayIsDeliveredWithASystemFlag() async throws {
        let service = try await ServiceHarness()
        try await Self.addRule(service, "darn", .bounceFlag)

        let bounced = try await Self.send(service, "well darn it", id: "m1", headers: [("accept-language", "de")])
        #expect(bounced.status == 201)
        #expect(bounced.json?["state"] as? String == "bounced")
        #expect(bounced.json?["type"] as? String == "error")
        let alert = try #require(bounced.json?["alert"] as? [String: Any])
        #expect(alert["title"] as? String == "Bist du sicher?")
        let actions = (alert["actions"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(actions == ["resend", "edit", "delete"], "bounce_flag offers Send Anyway")
        #expect(try await service.request("GET", "/v1/messages/m1", as: Self.bob).status == 404, "nobody else sees a bounced message")

        let resent = try await service.request("POST", "/v1/messages/m1/resend", as: Self.alice)
        #expect(resent.status == 200, "\(resent.text)")
        #expect(resent.json?["state"] as? String == "delivered")
        let flags = try await service.request("GET", "/v1/flags?reason=\(SystemFlag.bounceOverride)", as: Self.moderator)
        let filed = try #require((flags.json?["flags"] as? [[String: Any]])?.first)
        #expect(filed["reporter_id"] as? String == SystemFlag.reporterID)
        #expect(filed["message_id"] as? String == "m1")
        await service.close()
    }

    @Test func aShadowedMessageLooksDeliveredToItsAuthorAndOnlyModeratorsKnow() async throws {
        let service = try await ServiceHarness()
        try await Self.addRule(service, "spamword", .shadow)
        #expect(try await Self.send(service, "buy spamword now", id: "s1").json?["state"] as? String == "delivered")
        #expect(try await service.request("GET", "/v1/messages/s1", as: Self.alice).json?["state"] as? String == "delivered")
        #expect(try await service.request("GET", "/v1/messages/s1", as: Self.bob).status == 404)
        #expect(try await service.request("GET", "/v1/messages/s1", as: Self.moderator).json?["state"] as? String == "shadowed")
        await service.close()
    }

    @Test func aHardDeleteNeedsAnAdminThoughTheRouteTakesAnyUser() async throws {
        let service = try await ServiceHarness()
        _ = try await Self.send(service, "hello there", id: "d1")
        let byModerator = try await service.request("DELETE", "/v1/messages/d1?hard=true", as: Self.moderator)
        #expect(byModerator.status == 403)
        #expect(byModerator.json?["code"] as? String == "forbidden")
        #expect(try await service.request("DELETE", "/v1/messages/d1?hard=true", as: Self.admin).status == 204)
        #expect(try await service.request("GET", "/v1/messages/d1", as: Self.admin).status == 404, "a hard delete leaves nothing")
        await service.close()
    }

    @Test func channelPagesGiveEveryVisibleMessageOnceAndEndWithANullCursor() async throws {
        let service = try await ServiceHarness()
        try await Self.addRule(service, "nope", .bounce)
        for index in 0..<7 {
            let text = index == 3 ? "nope nope" : "message \(index)"
            #expect(try await Self.send(service, text, id: "p\(index)").status == 201)
        }
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let query = "limit=2" + (cursor.map { "&cursor=" + $0 } ?? "")
            let page = try await service.request("GET", "/v1/channels/messaging:room/messages?" + query, as: Self.bob)
            #expect(page.status == 200)
            let ids = (page.json?["messages"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(ids.count <= 2)
            seen = ids + seen
            cursor = page.json?["next_cursor"] as? String
            pages += 1
        } while cursor != nil && pages < 10
        #expect(seen == ["p0", "p1", "p2", "p4", "p5", "p6"], "the bounced message is not bob's to see")
        #expect(pages == 3)
        await service.close()
    }
}
