import BouncerDomain
import BouncerKit
import BouncerSQLite
import BouncerStore
import Foundation
import Testing
import TestSupport

/// The send path end to end: rules, bounces, Send Anyway, edits, deletes, visibility.
@Suite struct MessagesTests {
    /// An answer's message as an app reads it, with BouncerKit's model.
    static func message(_ reply: ServiceHarness.Reply) throws -> BouncerKit.Message {
        try reply.decoded(BouncerKit.Message.self)
    }

    @Test func everyBounceActionAndWhatSendAnywayDoes() async throws {
        let h = try await ServiceHarness()
        try await h.rule("darn", "bounce")
        try await h.rule("heck", "bounce_flag")
        try await h.rule("crap", "bounce_remove")

        let plain = try await h.send("oh darn it")
        #expect(plain.status == 201)
        let message = try Self.message(plain)
        #expect(message.state == .bounced && message.isBounced)
        #expect(message.type == .error)
        #expect(message.notice == "Message was bounced")
        #expect(message.alert?.title == "Are you sure?")
        #expect(message.alert?.actions.map(\.id) == [.edit, .delete], "a plain bounce offers no Send Anyway")
        #expect(message.moderation?.action == "bounce")
        let again = try await h.call("POST", "/v1/messages/\(message.id)/resend", as: "alice")
        #expect(try again.status == 200 && Self.message(again).state == .bounced)

        let flagged = try Self.message(try await h.send("what the heck"))
        #expect(flagged.alert?.actions.map(\.id) == [.resend, .edit, .delete])
        let delivered = try await h.call("POST", "/v1/messages/\(flagged.id)/resend", as: "alice")
        #expect(delivered.status == 200)
        let deliveredMessage = try Self.message(delivered)
        #expect(deliveredMessage.state == .delivered && deliveredMessage.alert == nil)
        #expect(try await h.call("GET", "/v1/messages/\(flagged.id)", as: "bob").status == 200, "delivered: everyone sees it")
        #expect(try await h.call("POST", "/v1/messages/\(flagged.id)/resend", as: "alice").status == 409)

        let removed = try Self.message(try await h.send("crap"))
        let afterResend = try Self.message(try await h.call("POST", "/v1/messages/\(removed.id)/resend", as: "alice"))
        #expect(afterResend.state == .removed && afterResend.type == .error)
        #expect(try await h.call("GET", "/v1/messages/\(removed.id)", as: "bob").status == 404)
        #expect(try await h.call("POST", "/v1/messages/\(message.id)/resend", as: "bob").status == 404, "hidden, so 404, not 403")
        let flags = try h.flags(on: try Self.message(try await h.send("heck again", id: "heck-again")).id)
        #expect(flags.isEmpty, "no flag until the author sends anyway")
        _ = try await h.call("POST", "/v1/messages/heck-again/resend", as: "alice")
        let filed = try h.flags(on: "heck-again")
        #expect(filed.count == 1)
        #expect(filed.first?.reporterID == "system")
        #expect(filed.first?.reason == "bounce_override")
        #expect(filed.first?.ruleID != nil)
    }

    @Test func deliveredShadowedRemovedMaskedAndFlagged() async throws {
        let h = try await ServiceHarness()
        try await h.rule("spamword", "shadow")
        try await h.rule("evil", "remove")
        try await h.rule("meh", "flag")
        try await h.rule("idiot", "mask_flag")

        let shadowed = try Self.message(try await h.send("buy spamword now", id: "shadowed"))
        #expect(shadowed.state == .delivered, "the author cannot tell")
        #expect(shadowed.moderation == nil)
        #expect(try await h.call("GET", "/v1/messages/shadowed", as: "bob").status == 404)
        let seenByModerator = try Self.message(try await h.call("GET", "/v1/messages/shadowed", as: "mod"))
        #expect(seenByModerator.state == .shadowed)
        #expect(seenByModerator.moderation?.action == "shadow")

        let removed = try Self.message(try await h.send("pure evil", id: "removed"))
        #expect(removed.state == .removed && removed.moderation?.action == "remove" && removed.alert == nil)
        #expect(try await h.call("GET", "/v1/messages/removed", as: "bob").status == 404)

        let masked = try Self.message(try await h.send("you idiot", id: "masked"))
        #expect(masked.state == .delivered && masked.text == "you *****")
        #expect(try Self.message(try await h.call("GET", "/v1/messages/masked", as: "bob")).text == "you *****")
        #expect(try Self.message(try await h.call("GET", "/v1/messages/masked", as: "mod")).moderation?.originalText == "you idiot")

        let flagged = try Self.message(try await h.send("meh whatever", id: "flagged"))
        #expect(flagged.state == .delivered)
        #expect(flagged.moderation == nil, "the author of a delivered message sees no moderation")

        // The channel as each viewer sees it, read as an app reads a page.
        #expect(try Self.message(try await h.send("hello all", id: "clean")).state == .delivered)
        func ids(_ user: String) async throws -> [String] {
            let page = try await h.call("GET", "/v1/channels/messaging:general/messages", as: user)
            return try page.decodedList("messages", of: BouncerKit.Message.self).map(\.id)
        }
        #expect(try await ids("alice") == ["shadowed", "removed", "masked", "flagged", "clean"])
        #expect(try await ids("bob") == ["masked", "flagged", "clean"])
        #expect(try await ids("mod") == ["shadowed", "removed", "masked", "flagged", "clean"])
        #expect(try h.flags(on: "masked").first?.reason == "rule_match")
        #expect(try h.flags(on: "flagged").count == 1)
        #expect(try h.flags(on: "clean").isEmpty)
    }

    @Test func retriesWithTheSameIDAreSafe() async throws {
        let h = try await ServiceHarness()
        let first = try await h.send("hello", id: "client-1")
        #expect(first.status == 201)
        let retry = try await h.send("hello", id: "client-1")
        #expect(retry.status == 200)
        #expect(retry.json?["created_at"] as? String == first.json?["created_at"] as? String)
        #expect(try await h.send("hello, changed", id: "client-1").status == 409)
        #expect(try await h.send("hello", as: "bob", id: "client-1").status == 409)
        // A reply is retried the same way, and its id is as much taken as any other.
        let reply = #"{"id":"client-2","text":"a reply","parent_id":"client-1"}"#
        #expect(try await h.call("POST", "/v1/channels/messaging:general/messages", as: "alice", body: reply).status == 201)
        #expect(try await h.call("POST", "/v1/channels/messaging:general/messages", as: "alice", body: reply).status == 200)
        #expect(try await h.call("POST", "/v1/channels/messaging:general/messages", as: "alice",
                                 body: #"{"id":"client-2","text":"another reply","parent_id":"client-1"}"#).status == 409)
        #expect(try await h.send("not a reply", id: "client-2").status == 409)
        #expect(try await h.send("hello", id: "not valid!").status == 400)
        #expect(try await h.send("   ").status == 400)
        #expect(try await h.send(String(repeating: "x", count: 5001)).status == 400)
        #expect(try await h.send("x", channel: "bad%20channel").status == 400)

        // `custom` comes back as it was sent; anything but an object is refused.
        let custom = try await h.call("POST", "/v1/channels/messaging:general/messages", as: "alice",
                                      body: #"{"text":"with custom","custom":{"b":[1,2.5,"x"],"a":{"nested":true}}}"#)
        #expect(custom.status == 201)
        let returned = try #require(custom.json?["custom"] as? [String: Any])
        #expect((returned["a"] as? [String: Any])?["nested"] as? Bool == true)
        #expect((returned["b"] as? [Any])?.count == 3)
        #expect(try await h.call("POST", "/v1/channels/messaging:general/messages", as: "alice",
                                 body: #"{"text":"x","custom":[1]}"#).status == 400)
        #expect(try await h.call("POST", "/v1/channels/messaging:general/messages", as: "alice",
                                 body: #"{"text":5}"#).status == 400)
        #expect(try await h.call("POST", "/v1/channels/messaging:general/messages", as: "alice",
                                 body: #"{"text":"a","text":"b"}"#).status == 400)
        // Too deep is told apart from malformed, as for every other JSON body.
        let deep = try await h.call("POST", "/v1/channels/messaging:general/messages", as: "alice",
                                    body: #"{"text":"x","custom":{"a":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}}")
        #expect(deep.status == 400 && deep.json?["code"] as? String == "json_too_deep")
        let malformed = try await h.call("POST", "/v1/channels/messaging:general/messages", as: "alice", body: #"{"text":"x""#)
        #expect(malformed.status == 400 && malformed.json?["code"] as? String == "invalid_json")
        let page = try await h.call("GET", "/v1/channels/messaging:general/messages", as: "bob")
        #expect((page.json?["messages"] as? [Any])?.count == 3)
    }

    @Test func hundredsOfMessagesPageEveryMessageOnce() async throws {
        let h = try await ServiceHarness()
        for index in 0..<300 {
            _ = try await h.send("message \(index)", as: index % 2 == 0 ? "alice" : "bob", channel: "team:paging", id: "m\(index)")
        }
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let path = "/v1/channels/team:paging/messages?limit=47" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try #require(try await h.call("GET", path, as: "bob").json)
            let ids = (page["messages"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
            let numbers = ids.compactMap { Int($0.dropFirst()) }
            #expect(numbers == numbers.sorted(), "chronological inside a page")
            seen = ids + seen
            cursor = page["next_cursor"] as? String
            pages += 1
        } while cursor != nil && pages < 20
        #expect(seen == (0..<300).map { "m\($0)" }, "newest page first: reading pages backwards gives the whole channel once")
        #expect(try await h.call("GET", "/v1/channels/team:empty/messages", as: "bob").json?["messages"] as? [Any] != nil)
        #expect(try await h.call("GET", "/v1/channels/team:paging/messages?limit=201", as: "bob").status == 400)
    }

    @Test func aMessageIsReadInTheMiddleOfItsChannel() async throws {
        let h = try await ServiceHarness()
        try await h.rule("grumblewort", "bounce")
        for index in 0..<12 {
            _ = try await h.send(index == 4 ? "grumblewort \(index)" : "message \(index)", as: index % 2 == 0 ? "alice" : "bob",
                           channel: "team:around", id: "a\(index)")
            _ = try await h.send("elsewhere \(index)", channel: "team:other", id: "o\(index)")
        }
        func ids(_ path: String, as user: String = "mod") async throws -> (ids: [String], next: String?) {
            let page = try #require(try await h.call("GET", path, as: user).json)
            return ((page["messages"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? [], page["next_cursor"] as? String)
        }
        // Two before, the message, two after, in order; the cursor goes on to older ones.
        let middle = try await ids("/v1/channels/team:around/messages?around=a6&limit=5")
        #expect(middle.ids == ["a4", "a5", "a6", "a7", "a8"])
        let older = try await ids("/v1/channels/team:around/messages?limit=3&cursor=\(try #require(middle.next))")
        #expect(older.ids == ["a1", "a2", "a3"])
        // Near either end there is less on that side; the default limit takes them all.
        #expect(try await ids("/v1/channels/team:around/messages?around=a0&limit=5").ids == ["a0", "a1", "a2"])
        #expect(try await ids("/v1/channels/team:around/messages?around=a11&limit=5").ids == ["a9", "a10", "a11"])
        #expect(try await ids("/v1/channels/team:around/messages?around=a5").ids == (0..<12).map { "a\($0)" })
        let one = try await ids("/v1/channels/team:around/messages?around=a6&limit=1")
        #expect(one.ids == ["a6"] && one.next != nil)
        // Only what the caller may see: bob does not see alice's bounced message, nor may
        // read around it.
        #expect(try await ids("/v1/channels/team:around/messages?around=a5&limit=3", as: "bob").ids == ["a3", "a5", "a6"])
        #expect(try await h.call("GET", "/v1/channels/team:around/messages?around=a4", as: "bob").status == 404)
        // A message of another channel, or none, is not found; a cursor with it is refused.
        #expect(try await h.call("GET", "/v1/channels/team:around/messages?around=o3", as: "mod").status == 404)
        #expect(try await h.call("GET", "/v1/channels/team:around/messages?around=nothing", as: "mod").status == 404)
        #expect(try await h.call("GET", "/v1/channels/team:around/messages?around=a6&cursor=\(try #require(middle.next))", as: "mod").status == 400)
    }

    @Test func editsAreModeratedAndKept() async throws {
        let h = try await ServiceHarness()
        try await h.rule("darn", "bounce")
        // An edit is the way out of a bounce.
        _ = try await h.send("darn it", id: "bounced")
        let fixed = try await h.call("PATCH", "/v1/messages/bounced", as: "alice", body: #"{"text":"oh well"}"#)
        #expect(fixed.status == 200)
        #expect(fixed.json?["state"] as? String == "delivered")
        #expect(fixed.json?["edited"] as? Bool == true)

        // A delivered message that an edit would bounce stays as it was.
        _ = try await h.send("fine text", id: "fine")
        let refused = try await h.call("PATCH", "/v1/messages/fine", as: "alice", body: #"{"text":"darn"}"#)
        #expect(refused.status == 422)
        #expect(refused.json?["code"] as? String == "edit_refused")
        #expect((refused.json?["moderation"] as? [String: Any])?["action"] as? String == "bounce")
        #expect((refused.json?["alert"] as? [String: Any])?["title"] as? String == "Are you sure?")
        #expect(try await h.call("GET", "/v1/messages/fine", as: "bob").json?["text"] as? String == "fine text")

        #expect(try await h.call("PATCH", "/v1/messages/fine", as: "bob", body: #"{"text":"mine now"}"#).status == 403)
        #expect(try await h.call("PATCH", "/v1/messages/fine", as: "alice", body: #"{"text":"better text"}"#).status == 200)
        let revisions = try await h.call("GET", "/v1/messages/fine/revisions", as: "mod")
        #expect((revisions.json?["revisions"] as? [[String: Any]])?.compactMap { $0["text"] as? String } == ["fine text"])
        #expect(try await h.call("GET", "/v1/messages/fine/revisions", as: "alice").status == 403)
        // Revisions page like every list.
        _ = try await h.call("PATCH", "/v1/messages/fine", as: "alice", body: #"{"text":"third text"}"#)
        let first = try await h.call("GET", "/v1/messages/fine/revisions?limit=1", as: "mod").json
        #expect((first?["revisions"] as? [[String: Any]])?.first?["text"] as? String == "fine text")
        let cursor = try #require(first?["next_cursor"] as? String)
        let second = try await h.call("GET", "/v1/messages/fine/revisions?limit=1&cursor=\(cursor)", as: "mod").json
        #expect((second?["revisions"] as? [[String: Any]])?.first?["text"] as? String == "better text")
        #expect(second?["next_cursor"] is NSNull)
        let bouncedRevisions = try await h.call("GET", "/v1/messages/bounced/revisions", as: "mod")
        #expect((bouncedRevisions.json?["revisions"] as? [[String: Any]])?.first?["state"] as? String == "bounced")
    }

    @Test func editAndResendAtOnce() async throws {
        let h = try await ServiceHarness()
        try await h.rule("heck", "bounce_flag")
        for round in 0..<10 {
            _ = try await h.send("heck no", id: "race-\(round)")
            async let edit = h.call("PATCH", "/v1/messages/race-\(round)", as: "alice", body: #"{"text":"yes, edited"}"#)
            async let resend = h.call("POST", "/v1/messages/race-\(round)/resend", as: "alice")
            let (editStatus, resendStatus) = try await (edit.status, resend.status)
            // Either order is fine; neither may fail or lose the other's effect.
            #expect(editStatus == 200, "round \(round)")
            #expect(resendStatus == 200 || resendStatus == 409, "round \(round)")
            // Edit first: the clean text is delivered and Send Anyway finds nothing bounced (409).
            // Send Anyway first: delivered, then edited. Either way the same end.
            let final = try await { () async throws -> [String] in
                let json = try await h.call("GET", "/v1/messages/race-\(round)", as: "mod").json
                return [json?["text"] as? String ?? "", json?["state"] as? String ?? ""]
            }()
            #expect(final == ["yes, edited", "delivered"], "round \(round)")
        }
    }

    @Test func deletesErasesOrTombstones() async throws {
        let h = try await ServiceHarness()
        try await h.rule("darn", "bounce")
        _ = try await h.send("darn", id: "b")
        #expect(try await h.call("DELETE", "/v1/messages/b", as: "alice").status == 204)
        #expect(try await h.call("GET", "/v1/messages/b", as: "mod").status == 404, "a bounced message is erased")

        _ = try await h.send("keep me", id: "t")
        #expect(try await h.call("DELETE", "/v1/messages/t", as: "bob").status == 403)
        #expect(try await h.call("DELETE", "/v1/messages/t?hard=true", as: "alice").status == 403)
        #expect(try await h.call("DELETE", "/v1/messages/t", as: "alice").status == 204)
        let tombstone = try await h.call("GET", "/v1/messages/t", as: "bob").json
        #expect(tombstone?["type"] as? String == "deleted")
        #expect(tombstone?["text"] as? String == "")
        #expect(try await h.call("GET", "/v1/messages/t", as: "mod").json?["text"] as? String == "keep me")
        #expect(try await h.call("DELETE", "/v1/messages/t?hard=true", as: "root").status == 204)
        #expect(try await h.call("GET", "/v1/messages/t", as: "root").status == 404)
        _ = try await h.send("by a moderator", id: "m")
        #expect(try await h.call("DELETE", "/v1/messages/m", as: "mod").status == 204)
        #expect(try await h.call("DELETE", "/v1/messages/nothing", as: "mod").status == 404)
    }

    @Test func actionsAndAlertsInTheCallersLanguage() async throws {
        let h = try await ServiceHarness()
        try await h.rule("heck", "bounce_flag")
        let german = try await h.call("GET", "/v1/localization?locale=de", as: "alice").json?["strings"] as? [String: String] ?? [:]
        let bounced = try #require(try await h.send("heck", id: "b", language: "de").json)
        #expect((bounced["alert"] as? [String: Any])?["title"] as? String == german["message.moderation.alert.title"])
        #expect(bounced["notice"] as? String == german["message.bounce.title"])
        let english = try await h.call("GET", "/v1/messages/b", as: "alice", language: "en").json
        #expect((english?["alert"] as? [String: Any])?["title"] as? String == "Are you sure?", "texts follow each request")

        func actions(_ id: String, _ user: String) async throws -> [String] {
            let response = try await h.call("GET", "/v1/messages/\(id)/actions", as: user)
            return (response.json?["actions"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        }
        #expect(try await actions("b", "alice") == ["resend", "edit", "delete"])
        _ = try await h.send("hello", id: "d")
        #expect(try await actions("d", "alice") == ["edit", "delete"])
        #expect(try await actions("d", "bob") == ["flag"])
        #expect(try await actions("d", "mod") == ["flag", "delete"])
        let flag = try #require((try await h.call("GET", "/v1/messages/d/actions", as: "bob", language: "fr").json?["actions"] as? [[String: Any]])?.first)
        #expect(flag["destructive"] as? Bool == true)
        #expect((flag["confirmation"] as? [String: Any])?["title"] != nil)

        #expect(try await h.call("PATCH", "/v1/config", as: "root", body: #"{"bounced_messages_alert_actions_enabled":false,"flag_action_enabled":false}"#).status == 200)
        #expect(try await actions("b", "alice") == ["edit", "delete"])
        // With the alert off, a bounced message carries its notice but no alert, everywhere.
        let bouncedNow = try #require(try await h.call("GET", "/v1/messages/b", as: "alice").json)
        #expect(bouncedNow["notice"] as? String != nil && bouncedNow["alert"] == nil)
        let sentNow = try #require(try await h.send("oh heck", id: "b2").json)
        #expect(sentNow["state"] as? String == "bounced" && sentNow["notice"] as? String != nil && sentNow["alert"] == nil)
        let page = try await h.call("GET", "/v1/channels/messaging:general/messages", as: "alice").json?["messages"] as? [[String: Any]] ?? []
        #expect(page.contains { $0["id"] as? String == "b2" && $0["alert"] == nil && $0["notice"] != nil })
        let refusedNow = try await h.call("PATCH", "/v1/messages/d", as: "alice", body: #"{"text":"heck"}"#)
        #expect(refusedNow.status == 422 && refusedNow.json?["moderation"] != nil && refusedNow.json?["alert"] == nil)
        #expect(try await actions("d", "bob") == [])
        #expect(try await h.call("PATCH", "/v1/config", as: "root", body: #"{"flag_action_enabled":"yes"}"#).status == 400)
        #expect(try await h.call("PATCH", "/v1/config", as: "root", body: #"{"no_such_setting":1}"#).status == 400)
        #expect(try await h.call("PATCH", "/v1/config", as: "mod", body: #"{"flag_action_enabled":true}"#).status == 403)
        #expect(try await h.call("PATCH", "/v1/config", as: "root", body: #"{"max_message_length":10}"#).status == 200)
        #expect(try await h.send("this text is longer than ten").status == 400)
        let config = try await h.call("GET", "/v1/config", as: "root").json
        #expect(config?["max_message_length"] as? Int == 10)
        #expect(config?["flag_reasons"] as? [String] != nil)
    }
}
