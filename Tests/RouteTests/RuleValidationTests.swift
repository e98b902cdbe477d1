import Foundation
import Testing
import TestSupport

/// Rules the engine cannot use are refused with the reason, and `POST /v1/moderation/check`
/// answers what a text would meet.
@Suite struct RuleValidationTests {
    @Test func unusableRulesAreRefused() async throws {
        let h = try await ServiceHarness()
        let post = { (body: String) async throws -> ServiceHarness.Reply in try await h.call("POST", "/v1/rules", as: "root", body: body) }

        let backreference = try await post(#"{"kind":"regex","pattern":"(a)\\1","action":"flag"}"#)
        #expect(backreference.status == 422)
        #expect(backreference.json?["code"] as? String == "invalid_pattern")
        #expect((backreference.json?["reason"] as? String)?.contains("Back-references") == true)
        let detail = backreference.json?["detail"] as? String ?? ""
        #expect(detail.hasSuffix(".") && !detail.hasSuffix(".."), "one sentence, one period: \(detail)")
        #expect(try await post(#"{"kind":"regex","pattern":"\#(String(repeating: "a", count: 513))","action":"flag"}"#).status == 422)
        #expect(try await post(#"{"kind":"regex","pattern":"foo(?=bar)","action":"flag"}"#).status == 422)
        #expect(try await post(#"{"kind":"spell","pattern":"x","action":"flag"}"#).status == 400)
        #expect(try await post(#"{"kind":"word","pattern":"x","action":"explode"}"#).status == 400)
        #expect(try await post(#"{"kind":"word","pattern":"x"}"#).status == 400)
        #expect(try await post(#"{"kind":"allow","pattern":"x","action":"flag"}"#).status == 400)
        #expect(try await post(#"{"kind":"word","pattern":"x","action":"flag","channels":["bad channel"]}"#).status == 400)
        let list = try await h.call("GET", "/v1/rules", as: "root")
        #expect((list.json?["rules"] as? [Any])?.isEmpty == true)
        #expect(try await h.call("GET", "/v1/rules?limit=0", as: "root").status == 400)
        #expect(try await h.call("GET", "/v1/rules?cursor=%25%25", as: "root").status == 400)
    }

    @Test func maskedTextForMaskFlag() async throws {
        let h = try await ServiceHarness()
        #expect(try await h.call("POST", "/v1/rules", as: "root", body: #"{"kind":"regex","pattern":"\\d{3}-\\d{4}","action":"mask_flag"}"#).status == 201)
        let verdict = try await h.call("POST", "/v1/moderation/check", as: "mod", body: #"{"text":"call 555-1234 now"}"#).json ?? [:]
        #expect(verdict["action"] as? String == "mask_flag")
        #expect(verdict["masked_text"] as? String == "call ******** now")
        #expect(try await h.call("POST", "/v1/moderation/check", as: "mod", body: #"{"text":"   "}"#).status == 400)
        let long = String(repeating: "a", count: 5001)
        #expect(try await h.call("POST", "/v1/moderation/check", as: "mod", body: #"{"text":"\#(long)"}"#).status == 400)
    }
}
