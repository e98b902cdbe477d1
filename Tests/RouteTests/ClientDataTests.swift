import Foundation
import Testing
import TestSupport

/// A client's own data (`custom`) comes back as it was sent: numbers past 2^53 digit for digit,
/// exponents and negative zero as written, members in their order. Read as text, since a test
/// that parsed the answer with JSONSerialization would round the numbers itself.
@Suite struct ClientDataTests {
    typealias Harness = ServiceHarness

    /// Every kind of number a double would change, in an order that is not the keys' order.
    static let custom = #"{"order_id":12345678901234567890,"big":9007199254740993,"neg":-9223372036854775809,"zero":-0,"# +
        #""exp":1.5E+3,"tenth":0.10,"nested":{"z":[1e-7,18446744073709551616],"a":true},"name":"caf\u00e9"}"#
    /// The same, as the service writes it back: compact, the one escape as the character.
    static let expected = #"{"order_id":12345678901234567890,"big":9007199254740993,"neg":-9223372036854775809,"zero":-0,"# +
        #""exp":1.5E+3,"tenth":0.10,"nested":{"z":[1e-7,18446744073709551616],"a":true},"name":"café"}"#

    @Test func messagesFlagsAndEventsKeepTheClientsNumbers() async throws {
        let h = try await ServiceHarness()
        try await h.rule("tangerine", "flag")
        let body = #"{"id":"order","text":"my tangerine order","custom":\#(Self.custom)}"#
        let sent = try await h.call("POST", "/v1/channels/messaging:general/messages", as: "alice", body: body)
        #expect(sent.status == 201)
        #expect(sent.text.contains(#""custom":\#(Self.expected)"#), "\(sent.text)")
        #expect(try await h.call("GET", "/v1/messages/order", as: "bob").text.contains(#""custom":\#(Self.expected)"#))
        #expect(try await h.call("GET", "/v1/channels/messaging:general/messages", as: "bob").text.contains(Self.expected))

        let flag = try await h.call("POST", "/v1/messages/order/flag", as: "bob", body: #"{"reason":"spam","custom":\#(Self.custom)}"#)
        #expect(flag.status == 201)
        #expect(flag.text.contains(#""custom":\#(Self.expected)"#), "\(flag.text)")
        #expect(try await h.call("GET", "/v1/flags?reporter_id=bob", as: "mod").text.contains(Self.expected))

        // The rule's flag tells an event with the message: webhooks and the stream send the same.
        let events = try await h.call("GET", "/v1/events?types=message.flagged", as: "mod")
        #expect(events.text.contains(Self.expected), "\(events.text)")
    }

    @Test func numbersPastWhatJSONCanHoldAreRefused() async throws {
        let h = try await ServiceHarness()
        let refused = try await h.call("POST", "/v1/channels/messaging:general/messages", as: "alice",
                                       body: #"{"text":"hi","custom":{"huge":1e999}}"#)
        #expect(refused.status == 400)
        #expect(refused.json?["code"] as? String == "invalid_json")
    }
}
