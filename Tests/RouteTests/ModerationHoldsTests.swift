import Foundation
import Testing
import TestSupport

/// Moderation that the person it is about cannot undo: not by editing, not by Send Anyway, not
/// by deleting the record. Each test reproduces a way it once could be undone.
@Suite struct ModerationHoldsTests {
    typealias Harness = ServiceHarness

    static func edit(_ h: Harness, _ id: String, _ text: String, as user: String = "bob") async throws -> ServiceHarness.Reply {
        try await h.call("PATCH", "/v1/messages/\(id)", as: user, body: #"{"text":"\#(text)"}"#)
    }

    static func revisionTexts(_ h: Harness, _ id: String) async throws -> [String] {
        (try await h.call("GET", "/v1/messages/\(id)/revisions", as: "mod").json?["revisions"] as? [[String: Any]])?
            .compactMap { $0["text"] as? String } ?? []
    }

    @Test func aShadowedMessageStaysShadowedThroughEdits() async throws {
        let h = try await ServiceHarness()
        // Shadowed by a shadow ban.
        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"shadow":true}"#).status == 201)
        #expect(try await h.send("can anyone hear me", as: "bob", id: "banned").status == 201)
        let edited = try await Self.edit(h, "banned", "can anyone hear me now")
        #expect(edited.status == 200)
        #expect(edited.json?["state"] as? String == "delivered", "to its author a shadowed message still looks delivered")
        #expect(try await h.call("GET", "/v1/messages/banned", as: "alice").status == 404, "nobody else reads it")
        let seen = try await h.call("GET", "/v1/messages/banned", as: "mod").json
        #expect(seen?["state"] as? String == "shadowed")
        #expect(seen?["text"] as? String == "can anyone hear me now")
        #expect(try await Self.revisionTexts(h, "banned") == ["can anyone hear me"])
        let channel = try await h.call("GET", "/v1/channels/messaging:general/messages", as: "alice").json?["messages"] as? [[String: Any]]
        #expect(channel?.isEmpty == true)

        // A message sent before the shadow ban, edited after it, is shadowed as a send would be.
        #expect(try await h.call("DELETE", "/v1/users/bob/ban", as: "mod").status == 204)
        #expect(try await h.send("before the ban", as: "bob", id: "before").status == 201)
        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"shadow":true}"#).status == 201)
        #expect(try await Self.edit(h, "before", "after the ban").status == 200)
        #expect(try await h.call("GET", "/v1/messages/before", as: "alice").status == 404)
        #expect(try await h.call("DELETE", "/v1/users/bob/ban", as: "mod").status == 204)

        // Shadowed by a rule: a clean new text does not bring it out.
        try await h.rule("spamword", "shadow")
        #expect(try await h.send("buy spamword now", as: "bob", id: "ruled").status == 201)
        #expect(try await Self.edit(h, "ruled", "a perfectly nice message").status == 200)
        #expect(try await h.call("GET", "/v1/messages/ruled", as: "alice").status == 404)
        #expect(try await h.call("GET", "/v1/messages/ruled", as: "mod").json?["state"] as? String == "shadowed")
    }

    @Test func aModeratorsRemovalHoldsThroughEdits() async throws {
        let h = try await ServiceHarness()
        #expect(try await h.send("something nasty", as: "bob", id: "reported").status == 201)
        #expect(try await FlagsTests.flag(h, "reported", as: "alice", reason: "harassment").status == 201)
        let review = try await h.call("POST", "/v1/messages/reported/review", as: "mod", body: #"{"decision":"remove_message"}"#)
        #expect(review.status == 200)
        #expect(try await h.call("GET", "/v1/messages/reported", as: "alice").status == 404)

        // The same text again, then another: the message stays removed either way.
        for text in ["something nasty", "something nice"] {
            let edited = try await Self.edit(h, "reported", text)
            #expect(edited.status == 200)
            #expect(edited.json?["state"] as? String == "removed")
            #expect(edited.json?["type"] as? String == "error")
            #expect(try await h.call("GET", "/v1/messages/reported", as: "alice").status == 404)
        }
        let seen = try await h.call("GET", "/v1/messages/reported", as: "mod").json
        #expect(seen?["state"] as? String == "removed")
        #expect(seen?["text"] as? String == "something nice")
        #expect(try await Self.revisionTexts(h, "reported") == ["something nasty", "something nasty"])
        let channel = try await h.call("GET", "/v1/channels/messaging:general/messages", as: "alice").json?["messages"] as? [[String: Any]]
        #expect(channel?.isEmpty == true)

        // A rule's removal is judged again by the new text, as the contract has it: the new
        // text is what a new send would be.
        try await h.rule("plumbus", "remove")
        #expect(try await h.send("a plumbus", as: "bob", id: "ruled").json?["state"] as? String == "removed")
        #expect(try await Self.edit(h, "ruled", "a teapot").json?["state"] as? String == "delivered")
        #expect(try await Self.edit(h, "ruled", "a plumbus").status == 422, "delivered again, it is refused as delivered ones are")
    }

    @Test func bansApplyToEditsAndSendAnyway() async throws {
        let h = try await ServiceHarness()
        try await h.rule("heck", "bounce_flag")
        #expect(try await h.send("hello", as: "bob", id: "old").status == 201)
        #expect(try await h.send("what the heck", as: "bob", id: "bounced").json?["state"] as? String == "bounced")
        #expect(try await h.send("heck again", as: "bob", id: "bounced-2").json?["state"] as? String == "bounced")

        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "mod", body: "{}").status == 201)
        let edit = try await Self.edit(h, "old", "new words while banned")
        #expect(edit.status == 403)
        #expect(edit.json?["code"] as? String == "user_banned")
        let resend = try await h.call("POST", "/v1/messages/bounced/resend", as: "bob")
        #expect(resend.status == 403)
        #expect(resend.json?["code"] as? String == "user_banned")
        #expect(try await h.call("GET", "/v1/messages/old", as: "alice").json?["text"] as? String == "hello")
        #expect(try await h.call("GET", "/v1/messages/bounced", as: "alice").status == 404)

        // A shadow ban: Send Anyway is answered as delivered, and nobody else reads it.
        #expect(try await h.call("DELETE", "/v1/users/bob/ban", as: "mod").status == 204)
        #expect(try await h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"shadow":true}"#).status == 201)
        let shadowResend = try await h.call("POST", "/v1/messages/bounced-2/resend", as: "bob")
        #expect(shadowResend.status == 200)
        #expect(shadowResend.json?["state"] as? String == "delivered")
        #expect(try await h.call("GET", "/v1/messages/bounced-2", as: "alice").status == 404)
        #expect(try await h.call("GET", "/v1/messages/bounced-2", as: "mod").json?["state"] as? String == "shadowed")
    }

    @Test func anAuthorsDeleteKeepsTheModerationRecord() async throws {
        let h = try await ServiceHarness()
        #expect(try await h.send("first nasty words", as: "bob", id: "removed").status == 201)
        #expect(try await Self.edit(h, "removed", "nasty words").status == 200)
        #expect(try await FlagsTests.flag(h, "removed", as: "alice").status == 201)
        #expect(try await h.call("POST", "/v1/messages/removed/review", as: "mod", body: #"{"decision":"remove_message"}"#).status == 200)
        #expect(try await h.call("DELETE", "/v1/messages/removed", as: "bob").status == 204)

        // Moderators still read it, its history and its flags.
        let seen = try await h.call("GET", "/v1/messages/removed", as: "mod").json
        #expect(seen?["text"] as? String == "nasty words")
        #expect(seen?["state"] as? String == "deleted")
        #expect(try await Self.revisionTexts(h, "removed") == ["first nasty words"])
        let flags = try await h.call("GET", "/v1/flags?author_id=bob", as: "mod").json?["flags"] as? [[String: Any]]
        #expect(flags?.compactMap { $0["message_id"] as? String } == ["removed"])
        // Nobody else is shown that there was a message; its author sees their tombstone.
        #expect(try await h.call("GET", "/v1/messages/removed", as: "alice").status == 404)
        let own = try await h.call("GET", "/v1/messages/removed", as: "bob").json
        #expect(own?["type"] as? String == "deleted")
        #expect(own?["text"] as? String == "")
        let channel = try await h.call("GET", "/v1/channels/messaging:general/messages", as: "alice").json?["messages"] as? [[String: Any]]
        #expect(channel?.isEmpty == true)
        #expect(try await Self.edit(h, "removed", "try again").status == 409)
    }

    @Test func aTombstoneShowsNobodyButModeratorsItsCustomData() async throws {
        let h = try await ServiceHarness()
        let body = #"{"id":"attached","text":"see the picture","custom":{"attachment":"https://files.example/secret.png"}}"#
        #expect(try await h.call("POST", "/v1/channels/messaging:general/messages", as: "bob", body: body).status == 201)
        #expect(try await h.call("DELETE", "/v1/messages/attached", as: "bob").status == 204)
        for user in ["alice", "bob"] {
            let tombstone = try await h.call("GET", "/v1/messages/attached", as: user)
            #expect(tombstone.json?["type"] as? String == "deleted", "\(user)")
            #expect(tombstone.json?["custom"] == nil, "\(user)")
            #expect(!tombstone.text.contains("secret.png"), "\(user)")
            let channel = try await h.call("GET", "/v1/channels/messaging:general/messages", as: user)
            #expect(!channel.text.contains("secret.png"), "\(user)")
        }
        #expect(try await h.call("GET", "/v1/messages/attached", as: "mod").text.contains("secret.png"))
    }
}
