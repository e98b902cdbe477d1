import Foundation
import Testing
import TestSupport

/// Moderation that the person it is about cannot undo: not by editing, not by Send Anyway, not
/// by deleting the record. Each test reproduces a way it once could be undone.
@Suite struct ModerationHoldsTests {
    typealias Harness = MessagesTests.Harness

    static func edit(_ h: Harness, _ id: String, _ text: String, as user: String = "bob") throws -> RawResponse {
        try h.call("PATCH", "/v1/messages/\(id)", as: user, body: #"{"text":"\#(text)"}"#)
    }

    static func revisionTexts(_ h: Harness, _ id: String) throws -> [String] {
        (try h.call("GET", "/v1/messages/\(id)/revisions", as: "mod").json?["revisions"] as? [[String: Any]])?
            .compactMap { $0["text"] as? String } ?? []
    }

    @Test func aShadowedMessageStaysShadowedThroughEdits() async throws {
        let h = try await blocking { try Harness() }
        try await blocking {
            // Shadowed by a shadow ban.
            #expect(try h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"shadow":true}"#).status == 201)
            #expect(try h.send("can anyone hear me", as: "bob", id: "banned").status == 201)
            let edited = try Self.edit(h, "banned", "can anyone hear me now")
            #expect(edited.status == 200)
            #expect(edited.json?["state"] as? String == "delivered", "to its author a shadowed message still looks delivered")
            #expect(try h.call("GET", "/v1/messages/banned", as: "alice").status == 404, "nobody else reads it")
            let seen = try h.call("GET", "/v1/messages/banned", as: "mod").json
            #expect(seen?["state"] as? String == "shadowed")
            #expect(seen?["text"] as? String == "can anyone hear me now")
            #expect(try Self.revisionTexts(h, "banned") == ["can anyone hear me"])
            let channel = try h.call("GET", "/v1/channels/messaging:general/messages", as: "alice").json?["messages"] as? [[String: Any]]
            #expect(channel?.isEmpty == true)

            // A message sent before the shadow ban, edited after it, is shadowed as a send would be.
            #expect(try h.call("DELETE", "/v1/users/bob/ban", as: "mod").status == 204)
            #expect(try h.send("before the ban", as: "bob", id: "before").status == 201)
            #expect(try h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"shadow":true}"#).status == 201)
            #expect(try Self.edit(h, "before", "after the ban").status == 200)
            #expect(try h.call("GET", "/v1/messages/before", as: "alice").status == 404)
            #expect(try h.call("DELETE", "/v1/users/bob/ban", as: "mod").status == 204)

            // Shadowed by a rule: a clean new text does not bring it out.
            try h.rule("spamword", "shadow")
            #expect(try h.send("buy spamword now", as: "bob", id: "ruled").status == 201)
            #expect(try Self.edit(h, "ruled", "a perfectly nice message").status == 200)
            #expect(try h.call("GET", "/v1/messages/ruled", as: "alice").status == 404)
            #expect(try h.call("GET", "/v1/messages/ruled", as: "mod").json?["state"] as? String == "shadowed")
        }
    }

    @Test func aModeratorsRemovalHoldsThroughEdits() async throws {
        let h = try await blocking { try Harness() }
        try await blocking {
            #expect(try h.send("something nasty", as: "bob", id: "reported").status == 201)
            #expect(try FlagsTests.flag(h, "reported", as: "alice", reason: "harassment").status == 201)
            let review = try h.call("POST", "/v1/messages/reported/review", as: "mod", body: #"{"decision":"remove_message"}"#)
            #expect(review.status == 200)
            #expect(try h.call("GET", "/v1/messages/reported", as: "alice").status == 404)

            // The same text again, then another: the message stays removed either way.
            for text in ["something nasty", "something nice"] {
                let edited = try Self.edit(h, "reported", text)
                #expect(edited.status == 200)
                #expect(edited.json?["state"] as? String == "removed")
                #expect(edited.json?["type"] as? String == "error")
                #expect(try h.call("GET", "/v1/messages/reported", as: "alice").status == 404)
            }
            let seen = try h.call("GET", "/v1/messages/reported", as: "mod").json
            #expect(seen?["state"] as? String == "removed")
            #expect(seen?["text"] as? String == "something nice")
            #expect(try Self.revisionTexts(h, "reported") == ["something nasty", "something nasty"])
            let channel = try h.call("GET", "/v1/channels/messaging:general/messages", as: "alice").json?["messages"] as? [[String: Any]]
            #expect(channel?.isEmpty == true)

            // A rule's removal is judged again by the new text, as the contract has it: the new
            // text is what a new send would be.
            try h.rule("plumbus", "remove")
            #expect(try h.send("a plumbus", as: "bob", id: "ruled").json?["state"] as? String == "removed")
            #expect(try Self.edit(h, "ruled", "a teapot").json?["state"] as? String == "delivered")
            #expect(try Self.edit(h, "ruled", "a plumbus").status == 422, "delivered again, it is refused as delivered ones are")
        }
    }

    @Test func bansApplyToEditsAndSendAnyway() async throws {
        let h = try await blocking { try Harness() }
        try await blocking {
            try h.rule("heck", "bounce_flag")
            #expect(try h.send("hello", as: "bob", id: "old").status == 201)
            #expect(try h.send("what the heck", as: "bob", id: "bounced").json?["state"] as? String == "bounced")
            #expect(try h.send("heck again", as: "bob", id: "bounced-2").json?["state"] as? String == "bounced")

            #expect(try h.call("POST", "/v1/users/bob/ban", as: "mod", body: "{}").status == 201)
            let edit = try Self.edit(h, "old", "new words while banned")
            #expect(edit.status == 403)
            #expect(edit.json?["code"] as? String == "user_banned")
            let resend = try h.call("POST", "/v1/messages/bounced/resend", as: "bob")
            #expect(resend.status == 403)
            #expect(resend.json?["code"] as? String == "user_banned")
            #expect(try h.call("GET", "/v1/messages/old", as: "alice").json?["text"] as? String == "hello")
            #expect(try h.call("GET", "/v1/messages/bounced", as: "alice").status == 404)

            // A shadow ban: Send Anyway is answered as delivered, and nobody else reads it.
            #expect(try h.call("DELETE", "/v1/users/bob/ban", as: "mod").status == 204)
            #expect(try h.call("POST", "/v1/users/bob/ban", as: "mod", body: #"{"shadow":true}"#).status == 201)
            let shadowResend = try h.call("POST", "/v1/messages/bounced-2/resend", as: "bob")
            #expect(shadowResend.status == 200)
            #expect(shadowResend.json?["state"] as? String == "delivered")
            #expect(try h.call("GET", "/v1/messages/bounced-2", as: "alice").status == 404)
            #expect(try h.call("GET", "/v1/messages/bounced-2", as: "mod").json?["state"] as? String == "shadowed")
        }
    }

    @Test func anAuthorsDeleteKeepsTheModerationRecord() async throws {
        let h = try await blocking { try Harness() }
        try await blocking {
            #expect(try h.send("first nasty words", as: "bob", id: "removed").status == 201)
            #expect(try Self.edit(h, "removed", "nasty words").status == 200)
            #expect(try FlagsTests.flag(h, "removed", as: "alice").status == 201)
            #expect(try h.call("POST", "/v1/messages/removed/review", as: "mod", body: #"{"decision":"remove_message"}"#).status == 200)
            #expect(try h.call("DELETE", "/v1/messages/removed", as: "bob").status == 204)

            // Moderators still read it, its history and its flags.
            let seen = try h.call("GET", "/v1/messages/removed", as: "mod").json
            #expect(seen?["text"] as? String == "nasty words")
            #expect(seen?["state"] as? String == "deleted")
            #expect(try Self.revisionTexts(h, "removed") == ["first nasty words"])
            let flags = try h.call("GET", "/v1/flags?author_id=bob", as: "mod").json?["flags"] as? [[String: Any]]
            #expect(flags?.compactMap { $0["message_id"] as? String } == ["removed"])
            // Nobody else is shown that there was a message; its author sees their tombstone.
            #expect(try h.call("GET", "/v1/messages/removed", as: "alice").status == 404)
            let own = try h.call("GET", "/v1/messages/removed", as: "bob").json
            #expect(own?["type"] as? String == "deleted")
            #expect(own?["text"] as? String == "")
            let channel = try h.call("GET", "/v1/channels/messaging:general/messages", as: "alice").json?["messages"] as? [[String: Any]]
            #expect(channel?.isEmpty == true)
            #expect(try Self.edit(h, "removed", "try again").status == 409)
        }
    }

    @Test func aTombstoneShowsNobodyButModeratorsItsCustomData() async throws {
        let h = try await blocking { try Harness() }
        try await blocking {
            let body = #"{"id":"attached","text":"see the picture","custom":{"attachment":"https://files.example/secret.png"}}"#
            #expect(try h.call("POST", "/v1/channels/messaging:general/messages", as: "bob", body: body).status == 201)
            #expect(try h.call("DELETE", "/v1/messages/attached", as: "bob").status == 204)
            for user in ["alice", "bob"] {
                let tombstone = try h.call("GET", "/v1/messages/attached", as: user)
                #expect(tombstone.json?["type"] as? String == "deleted", "\(user)")
                #expect(tombstone.json?["custom"] == nil, "\(user)")
                #expect(!tombstone.text.contains("secret.png"), "\(user)")
                let channel = try h.call("GET", "/v1/channels/messaging:general/messages", as: user)
                #expect(!channel.text.contains("secret.png"), "\(user)")
            }
            #expect(try h.call("GET", "/v1/messages/attached", as: "mod").text.contains("secret.png"))
        }
    }
}
