import Foundation
import Testing
import TestSupport

@Suite(.oneInstance) struct MetricsTests {
    @Test func prometheusTextAboutRequestsMessagesRulesAndTheStore() async throws {
        let h = try await blocking { try BlackBoxHarness() }
        try await blocking {
            try h.rule("darn", "bounce")
            _ = try h.client.request("GET", "/healthz")
            _ = try h.client.request("GET", "/nowhere")
            _ = try h.client.request("BREW", "/nowhere")
            _ = try h.client.request("STEEP", "/nowhere")
            _ = try h.send("darn it")
            _ = try h.send("hello there", id: "clean")
            _ = try h.call("POST", "/v1/messages/clean/flag", as: "bob", body: #"{"reason":"spam"}"#)
            let response = try h.client.request("GET", "/metrics")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            let text = response.text
            let lines = Set(text.split(separator: "\n").map(String.init))
            #expect(lines.contains(#"bouncer_http_requests_total{route="/healthz",method="GET",status="200"} 1"#))
            #expect(lines.contains(#"bouncer_http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
            // Methods a client makes up share one label value, so they cannot grow the series.
            #expect(lines.contains(#"bouncer_http_requests_total{route="unmatched",method="other",status="404"} 2"#))
            #expect(!text.contains("BREW") && !text.contains("STEEP"))
            #expect(lines.contains(#"bouncer_http_requests_total{route="/v1/channels/{channel_id}/messages",method="POST",status="201"} 2"#))
            #expect(lines.contains(#"bouncer_messages_total{verdict="bounce"} 1"#))
            #expect(lines.contains(#"bouncer_messages_total{verdict="none"} 1"#))
            #expect(lines.contains(#"bouncer_rules 1"#))
            #expect(lines.contains(#"bouncer_open_flags 1"#))
            #expect(lines.contains { $0.hasPrefix("bouncer_open_connections ") })
            #expect(lines.contains { $0.hasPrefix(#"bouncer_http_request_duration_seconds_bucket{route="/healthz",le="+Inf"} 1"#) })
            #expect(lines.contains { $0.hasPrefix("bouncer_store_commit_batch_size_count ") })
            #expect(lines.contains { $0.hasPrefix("bouncer_rules_compile_duration_seconds_count ") })
            #expect(lines.contains("# TYPE bouncer_http_requests_total counter"))
            #expect(lines.contains("# TYPE bouncer_http_request_duration_seconds histogram"))
            // By mode only, one series each (a rule's own hits are in /v1/rules/stats).
            #expect(lines.contains(#"bouncer_rule_matches_total{mode="enforce"} 1"#))
            #expect(!text.contains("rule_id="))
            // A counter without labels reads 0 before its first sample.
            #expect(lines.contains("bouncer_store_unavailable_total 0"))
            #expect(lines.contains("bouncer_store_channel_copy_failures_total 0"))
        }
    }
}
