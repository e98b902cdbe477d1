import Foundation
import Testing
import TestSupport

/// Problem details in the caller's language.
@Suite struct ProblemLanguageTests {
    /// Problem details, not only titles, come in the request's language: a missing message, a
    /// field refused, an appeal made twice and a send past the rate, in German.
    @Test func problemDetailsComeInTheRequestsLanguage() async throws {
        let h = try await ServiceHarness { $0.sendRatePerUser = 1 }
        let german = try #require(try await h.call("GET", "/v1/localization/de", as: "alice").json?["strings"] as? [String: String])
        let text = { (key: String) throws -> String in try #require(german[key], "de has \(key)") }

        let missing = try await h.call("GET", "/v1/messages/no-such-message", as: "alice", language: "de")
        #expect(missing.status == 404)
        #expect(missing.json?["code"] as? String == "message_not_found")
        #expect(missing.json?["title"] as? String == (try text("error.404.title")))
        #expect(missing.json?["detail"] as? String == (try text("error.message_not_found.detail")))
        #expect(missing.json?["detail"] as? String != "There is no such message.")
        #expect(missing.header("Content-Language") == "de")
        let english = try await h.call("GET", "/v1/messages/no-such-message", as: "alice", language: "en")
        #expect(english.json?["detail"] as? String == "There is no such message.", "English stays as it was")

        let refused = try await h.call("POST", "/v1/channels/messaging:general/messages", as: "alice",
                                       body: #"{"text":"hello","custom":"not an object"}"#, language: "de")
        #expect(refused.status == 400)
        #expect(refused.json?["code"] as? String == "invalid_field")
        #expect(refused.json?["detail"] as? String == (try text("error.detail.field.object")).replacingOccurrences(of: "%@", with: "custom"))
        #expect(refused.json?["detail"] as? String == "`custom` muss ein Objekt sein.")
        let refusedInEnglish = try await h.call("POST", "/v1/channels/messaging:general/messages", as: "alice",
                                                body: #"{"text":"hello","custom":"not an object"}"#)
        #expect(refusedInEnglish.json?["detail"] as? String == "`custom` must be an object.")

        try await h.rule("plumbus", "bounce")
        #expect(try await h.send("a plumbus for you", as: "bob", id: "bounced").json?["state"] as? String == "bounced")
        #expect(try await AppealsTests.appeal(h, "bounced").status == 201)
        let again = try await h.call("POST", "/v1/messages/bounced/appeal", as: "bob", body: #"{"reason":"Once more."}"#, language: "de")
        #expect(again.status == 409)
        #expect(again.json?["code"] as? String == "appeal_exists")
        #expect(again.json?["title"] as? String == (try text("error.409.title")))
        #expect(again.json?["detail"] as? String == (try text("error.detail.appeals.message_appealed")))

        // One message a second, bursts of two: the third at once is refused.
        var limited: ServiceHarness.Reply?
        for index in 0..<5 where limited == nil {
            let sent = try await h.send("hello \(index)", as: "alice", language: "de")
            if sent.status == 429 { limited = sent }
        }
        let tooMany = try #require(limited)
        #expect(tooMany.json?["code"] as? String == "rate_limited")
        let seconds = try #require(tooMany.header("Retry-After"))
        #expect(tooMany.json?["detail"] as? String == (try text("error.rate_limited.detail")).replacingOccurrences(of: "%d", with: seconds))
        #expect((tooMany.json?["detail"] as? String)?.hasPrefix("Zu viele Nachrichten") == true)
    }
}
