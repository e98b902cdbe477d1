import Foundation
import Testing
import TestSupport

/// `/v1/integrations/matrix/{callback}` as Synapse's `synapse-http-antispam` module calls it: the
/// bodies it sends, the answers it needs (any 2xx allows; a refusal has only Matrix's fields). The
/// real homeserver drives the same routes in Tests/integrations.
@Suite(.oneInstance) struct MatrixIntegrationTests {
    typealias Harness = BlackBoxHarness
    static let secret = "matrix-shared-secret"

    static func call(_ h: Harness, _ callback: String, _ body: String, secret: String? = MatrixIntegrationTests.secret) throws -> RawResponse {
        var headers = ["Content-Type": "application/json"]
        if let secret { headers["Authorization"] = "Bearer \(secret)" }
        return try h.client.request("POST", "/v1/integrations/matrix/\(callback)", headers: headers, body: body)
    }

    static func message(_ h: Harness, _ eventID: String, _ text: String, sender: String = "@alice:hs.test", room: String = "!room:hs.test",
                        replacing: String? = nil) throws -> RawResponse {
        var content: [String: Any] = ["msgtype": "m.text", "body": text]
        if let replacing {
            content["m.relates_to"] = ["rel_type": "m.replace", "event_id": replacing]
            content["m.new_content"] = ["msgtype": "m.text", "body": text]
            content["body"] = "* " + text
        }
        let event: [String: Any] = ["type": "m.room.message", "room_id": room, "sender": sender, "event_id": eventID, "content": content,
                                    "origin_server_ts": 1_700_000_000_000, "unsigned": ["age": 0]]
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["event": event]), as: UTF8.self)
        return try call(h, "check_event_for_spam", body)
    }

    /// A message as moderators read it, once its copy is committed: a clean one is answered
    /// before that. Nil when it has not come within 20 s.
    static func waitForCopy(_ h: Harness, _ encodedID: String) throws -> [String: Any]? {
        let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(20))
        while ContinuousClock.now < deadline {
            let response = try h.call("GET", "/v1/messages/\(encodedID)", as: "mod")
            if response.status == 200 { return response.json }
            Thread.sleep(forTimeInterval: 0.02)
        }
        Issue.record("the copy of \(encodedID) was not committed within 20 s")
        return nil
    }

    /// A refusal as the module needs it: Matrix's fields and nothing else.
    static func expectMatrixError(_ response: RawResponse, _ status: Int, _ errcode: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
        let json = response.json ?? [:]
        #expect(json["errcode"] as? String == errcode, "\(response.text)", sourceLocation: sourceLocation)
        #expect(json["error"] is String, sourceLocation: sourceLocation)
        #expect(Set(json.keys).isSubset(of: ["errcode", "error", "retry_after_ms"]), "\(response.text)", sourceLocation: sourceLocation)
    }

    @Test func messagesAreJudgedStoredAndAnsweredInMatrixsShape() async throws {
        let h = try await blocking { try Harness(arguments: ["--matrix-secret", Self.secret]) }
        try await blocking {
            try h.rule("darn", "bounce")
            try h.rule("kiwi", "flag")
            Self.expectMatrixError(try Self.call(h, "check_event_for_spam", "{}", secret: "wrong"), 401, "M_UNKNOWN_TOKEN")
            Self.expectMatrixError(try Self.call(h, "check_event_for_spam", "{}", secret: nil), 401, "M_UNKNOWN_TOKEN")
            Self.expectMatrixError(try Self.call(h, "check_event_for_spam", "{not json"), 400, "M_BAD_JSON")
            Self.expectMatrixError(try Self.call(h, "check_event_for_spam", #"{"event":{"type":"m.room.message"}}"#), 400, "M_INVALID_PARAM")
            #expect(try Self.call(h, "ping", #"{"id":"abc"}"#).json?["status"] as? String == "ok")

            // A clean message: allowed, and kept under its Matrix ids for moderators. It is answered
            // before its copy is committed, so the copy is waited for (with a deadline).
            let clean = try Self.message(h, "$clean-1", "hello there")
            #expect(clean.status == 200 && clean.text == "{}")
            let stored = try Self.waitForCopy(h, "%24clean-1")
            #expect(stored?["id"] as? String == "$clean-1")
            #expect(stored?["user_id"] as? String == "@alice:hs.test")
            #expect(stored?["channel_id"] as? String == "!room:hs.test")
            let room = try h.call("GET", "/v1/channels/!room:hs.test/messages", as: "mod").json?["messages"] as? [[String: Any]]
            #expect(room?.compactMap { $0["id"] as? String } == ["$clean-1"])

            // A bounce: refused with the alert's message; held for moderators as bounced.
            let bounced = try Self.message(h, "$bounced-1", "oh darn it")
            Self.expectMatrixError(bounced, 403, "M_FORBIDDEN")
            #expect(bounced.json?["error"] as? String == "Consider how your comment might make others feel and be sure to follow our Community Guidelines.")
            #expect(try h.call("GET", "/v1/messages/%24bounced-1", as: "mod").json?["state"] as? String == "bounced")

            // A flag: delivered, and in the review queue.
            #expect(try Self.message(h, "$flagged-1", "a kiwi for you").status == 200)
            let queue = try h.call("GET", "/v1/review-queue", as: "mod").json?["items"] as? [[String: Any]]
            #expect(queue?.compactMap { ($0["message"] as? [String: Any])?["id"] as? String } == ["$flagged-1"])

            // An edit into a banned word is refused, and the message stays as it was.
            Self.expectMatrixError(try Self.message(h, "$edit-1", "darn", replacing: "$clean-1"), 403, "M_FORBIDDEN")
            #expect(try h.call("GET", "/v1/messages/%24clean-1", as: "mod").json?["text"] as? String == "hello there")
            #expect(try Self.message(h, "$edit-2", "hello again", replacing: "$clean-1").status == 200)
            #expect(try h.call("GET", "/v1/messages/%24clean-1", as: "mod").json?["text"] as? String == "hello again")

            // A redaction deletes the message; other events pass, encrypted ones too.
            let redaction = #"{"event":{"type":"m.room.redaction","room_id":"!room:hs.test","sender":"@alice:hs.test","event_id":"$r1","content":{"redacts":"$clean-1"}}}"#
            #expect(try Self.call(h, "check_event_for_spam", redaction).status == 200)
            #expect(try h.call("GET", "/v1/messages/%24clean-1", as: "mod").json?["state"] as? String == "deleted")
            let encrypted = #"{"event":{"type":"m.room.encrypted","room_id":"!room:hs.test","sender":"@alice:hs.test","event_id":"$e1","content":{"ciphertext":"x"}}}"#
            #expect(try Self.call(h, "check_event_for_spam", encrypted).status == 200)
            #expect(try Self.call(h, "check_username_for_spam", #"{"user_profile":{},"requester_id":"@alice:hs.test"}"#).status == 200)
            let metrics = try h.client.request("GET", "/metrics").text
            #expect(metrics.contains(#"bouncer_matrix_callbacks_total{kind="encrypted",answer="allowed"} 1"#), "\(metrics)")
        }
    }

    @Test func bannedUsersCanNeitherSendNorJoinAndSendsAreRateLimited() async throws {
        let h = try await blocking { try Harness(arguments: ["--matrix-secret", Self.secret, "--send-rate-per-user", "1"]) }
        try await blocking {
            #expect(try h.call("POST", "/v1/users/@bob:hs.test/ban", as: "mod", body: #"{"reason":"spam"}"#).status == 201)
            let refused = try Self.message(h, "$banned-1", "hello", sender: "@bob:hs.test")
            Self.expectMatrixError(refused, 403, "M_FORBIDDEN")
            #expect(refused.json?["error"] as? String == "You are banned from sending messages.")
            Self.expectMatrixError(try Self.call(h, "user_may_join_room", #"{"user":"@bob:hs.test","room":"!room:hs.test","is_invited":false}"#),
                                   403, "M_FORBIDDEN")
            Self.expectMatrixError(try Self.call(h, "user_may_create_room", #"{"user_id":"@bob:hs.test"}"#), 403, "M_FORBIDDEN")
            #expect(try Self.call(h, "user_may_join_room", #"{"user":"@alice:hs.test","room":"!room:hs.test","is_invited":false}"#).status == 200)
            #expect(try h.call("GET", "/v1/bans", as: "mod").text.contains("@bob:hs.test"))

            // One a second, bursts of two: the third at once is told when to come back.
            var statuses: [Int] = []
            var limited: RawResponse?
            for index in 0..<3 {
                let response = try Self.message(h, "$rate-\(index)", "message \(index)")
                statuses.append(response.status)
                if response.status == 429 { limited = response }
            }
            #expect(statuses == [200, 200, 429])
            if let limited {
                Self.expectMatrixError(limited, 429, "M_LIMIT_EXCEEDED")
                #expect((limited.json?["retry_after_ms"] as? Int ?? 0) >= 1000)
            }
        }
    }

    @Test func anUnconfiguredIntegrationIsNotFoundInMatrixsShape() async throws {
        let h = try await blocking { try Harness() }
        try await blocking {
            Self.expectMatrixError(try Self.call(h, "check_event_for_spam", "{}"), 404, "M_NOT_FOUND")
            #expect(try h.client.request("POST", "/v1/integrations/stream/before-message-send", headers: ["Content-Type": "application/json"],
                                         body: "{}").status == 404)
        }
    }
}
