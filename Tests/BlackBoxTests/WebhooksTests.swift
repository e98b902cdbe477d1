import Foundation
import Testing
import TestSupport

/// Webhooks: registration, Standard Webhooks signatures checked by the reference library in a
/// receiver process, retries across a receiver's outage and the service's own crash, 410.
@Suite(.oneInstance) struct WebhooksTests {
    typealias Harness = BlackBoxHarness

    /// Registers a webhook for `types` at `receiver`'s URL; returns its id and secret.
    static func register(_ h: Harness, url: String, types: [String] = ["*"]) throws -> (id: String, secret: String) {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["url": url, "types": types]), as: UTF8.self)
        let response = try h.call("POST", "/v1/webhooks", as: "root", body: body)
        precondition(response.status == 201, "webhook: \(response.text)")
        return (response.json?["id"] as? String ?? "", response.json?["secret"] as? String ?? "")
    }

    /// A receiver for a webhook registered with a placeholder URL, then pointed at it (the
    /// secret is only known once the webhook exists).
    static func webhookWithReceiver(_ h: Harness, types: [String] = ["*"], status: Int = 204, delay: Double = 0, started: Bool = true)
        throws -> (id: String, receiver: WebhookReceiver) {
        let (id, secret) = try register(h, url: "http://127.0.0.1:9/unused", types: types)
        let receiver = try WebhookReceiver(secret: secret, status: status, delay: delay)
        #expect(try h.call("PATCH", "/v1/webhooks/\(id)", as: "root", body: #"{"url":"\#(receiver.url)"}"#).status == 200)
        if started { try receiver.start() }
        return (id, receiver)
    }

    static func deliveries(_ h: Harness, _ id: String, _ query: String = "") throws -> [[String: Any]] {
        try h.call("GET", "/v1/webhooks/\(id)/deliveries\(query)", as: "root").json?["deliveries"] as? [[String: Any]] ?? []
    }

    @Test func eventsAreDeliveredSignedAndListedAndAWebhookIsManaged() async throws {
        try await blocking {
            let h = try Harness(arguments: ["--webhook-allow-private"])
            let (all, receiver) = try Self.webhookWithReceiver(h)
            let (bansOnly, bansReceiver) = try Self.webhookWithReceiver(h, types: ["user.banned"])
            try h.rule("pear", "bounce")
            #expect(try h.send("a pear", id: "b1").status == 201)
            #expect(try h.send("no moderation here").status == 201)
            #expect(try h.call("POST", "/v1/users/bob/ban", as: "mod", body: "{}").status == 201)
            let test = try h.call("POST", "/v1/webhooks/\(all)/test", as: "root")
            #expect(test.status == 202 && test.json?["event_type"] as? String == "webhook.test")

            #expect(receiver.wait(timeout: .seconds(10)) { $0.count >= 4 })
            let records = receiver.records
            #expect(records.allSatisfy { $0.verified }, "every signature checks out: \(records)")
            #expect(Set(records.compactMap(\.type)) == ["rule.changed", "message.bounced", "user.banned", "webhook.test"])
            #expect(records.count == 4, "each once")
            #expect(bansReceiver.wait(timeout: .seconds(10)) { $0.count >= 1 })
            #expect(bansReceiver.records.map(\.type) == ["user.banned"])

            // Outcomes are recorded a batch at a time, once the receiver has answered.
            var listed = try Self.deliveries(h, all)
            for _ in 0..<100 where !listed.allSatisfy({ $0["state"] as? String == "delivered" }) {
                Thread.sleep(forTimeInterval: 0.1)
                listed = try Self.deliveries(h, all)
            }
            #expect(listed.count == 4 && listed.allSatisfy { $0["state"] as? String == "delivered" && $0["last_status"] as? Int == 204 })
            #expect(try Self.deliveries(h, all, "?state=failed").isEmpty)
            #expect(try Self.deliveries(h, all, "?limit=3").count == 3)
            let metrics = try RawHTTPClient(port: h.service.port).request("GET", "/metrics").text
            #expect(metrics.contains(#"bouncer_webhook_attempts_total{outcome="delivered"}"#))

            // The secret is shown once; a webhook is changed, disabled and deleted.
            let webhook = try #require(try h.call("GET", "/v1/webhooks/\(all)", as: "root").json)
            #expect(webhook["secret"] == nil && webhook["enabled"] as? Bool == true)
            #expect((try h.call("GET", "/v1/webhooks", as: "root").json?["webhooks"] as? [Any])?.count == 2)
            #expect(try h.call("PATCH", "/v1/webhooks/\(bansOnly)", as: "root", body: #"{"enabled":false}"#).json?["enabled"] as? Bool == false)
            #expect(try h.call("POST", "/v1/users/carol/ban", as: "mod", body: "{}").status == 201)
            #expect(receiver.wait(timeout: .seconds(10)) { $0.count >= 5 })
            Thread.sleep(forTimeInterval: 0.5)
            #expect(bansReceiver.records.count == 1, "a disabled webhook is sent nothing")
            #expect(try h.call("DELETE", "/v1/webhooks/\(bansOnly)", as: "root").status == 204)
            #expect(try h.call("GET", "/v1/webhooks/\(bansOnly)", as: "root").status == 404)
            #expect(try h.call("GET", "/v1/webhooks", as: "mod").status == 403)
            #expect(try h.call("POST", "/v1/webhooks", as: "root", body: #"{"url":"ftp://example.com/x"}"#).status == 400)
            #expect(try h.call("POST", "/v1/webhooks", as: "root", body: #"{"url":"https://example.com/x","types":["message.sent"]}"#).status == 400)
            #expect(try h.call("POST", "/v1/webhooks", as: "root", body: #"{"url":"https://example.com/x","types":[]}"#).status == 400)
        }
    }

    /// Without `--webhook-allow-private`, URLs to loopback, private and link-local addresses are refused.
    @Test(arguments: ["http://127.0.0.1:8080/x", "http://localhost/x", "http://[::1]/x", "http://10.0.0.8/x", "http://192.168.1.1/x",
                      "http://172.20.0.1/x", "http://169.254.169.254/latest/meta-data", "http://[fd00::1]/x", "http://0.0.0.0/x"])
    func privateAddressesAreRefused(url: String) async throws {
        try await blocking {
            let h = try Harness()
            let response = try h.call("POST", "/v1/webhooks", as: "root", body: #"{"url":"\#(url)"}"#)
            #expect(response.status == 422 && response.json?["code"] as? String == "private_address", "\(response.text)")
        }
    }

    /// A receiver down for 30 s gets every event once it is back, each once.
    @Test func aReceiverDownFor30SecondsGetsEveryEventWhenBack() async throws {
        try await blocking {
            let h = try Harness(arguments: ["--webhook-allow-private", "--webhook-retry-seconds", "1"])
            let (id, receiver) = try Self.webhookWithReceiver(h, started: false)
            try h.rule("pear", "bounce")
            for index in 0..<20 { #expect(try h.send("pear \(index)").status == 201) }
            Thread.sleep(forTimeInterval: 30)
            let pending = try Self.deliveries(h, id, "?state=pending")
            #expect(pending.count == 21 && pending.allSatisfy { ($0["attempts"] as? Int ?? 0) >= 2 && $0["last_error"] is String })
            try receiver.start()
            #expect(receiver.wait(timeout: .seconds(60)) { Set($0.map(\.webhookID)).count >= 21 })
            let ids = receiver.records.map(\.webhookID)
            #expect(Set(ids) == Set((1...21).map(String.init)))
            #expect(ids.count == 21, "none twice")
            #expect(receiver.records.allSatisfy { $0.verified })
        }
    }

    /// Deliveries pending when the service is killed are delivered after it starts again.
    @Test func deliveriesPendingAtAKillAreDeliveredAfterTheRestart() async throws {
        try await blocking {
            let h = try Harness(arguments: ["--webhook-allow-private", "--webhook-retry-seconds", "1"])
            let (_, receiver) = try Self.webhookWithReceiver(h, started: false)
            try h.rule("pear", "bounce")
            for index in 0..<10 { #expect(try h.send("pear \(index)").status == 201) }
            Thread.sleep(forTimeInterval: 1.5)
            for instance in [h.service] + h.service.siblings { instance.signal(SIGKILL) }
            _ = h.service.waitForExit(timeout: .seconds(5))
            try receiver.start()
            let again = try ServiceProcess(arguments: ["--data-dir", h.directory.path("data"), "--webhook-allow-private",
                                                       "--webhook-retry-seconds", "1"])
            #expect(receiver.wait(timeout: .seconds(60)) { Set($0.map(\.webhookID)).count >= 11 })
            #expect(Set(receiver.records.map(\.webhookID)) == Set((1...11).map(String.init)))
            withExtendedLifetime(again) {}
        }
    }

    /// A 410 from the receiver disables its webhook, with the reason.
    @Test func a410DisablesTheWebhook() async throws {
        try await blocking {
            let h = try Harness(arguments: ["--webhook-allow-private"])
            let (id, receiver) = try Self.webhookWithReceiver(h, status: 410)
            try h.rule("pear", "bounce")
            #expect(receiver.wait(timeout: .seconds(10)) { !$0.isEmpty })
            var webhook: [String: Any]?
            for _ in 0..<50 where webhook?["enabled"] as? Bool != false {
                webhook = try h.call("GET", "/v1/webhooks/\(id)", as: "root").json
                Thread.sleep(forTimeInterval: 0.1)
            }
            #expect(webhook?["enabled"] as? Bool == false && (webhook?["disabled_reason"] as? String)?.contains("410") == true)
            #expect(try Self.deliveries(h, id).first?["state"] as? String == "failed")
        }
    }

    /// A receiver that never answers in time holds only its own deliveries: sends go on.
    @Test func aReceiverThatNeverAnswersCannotSlowSends() async throws {
        try await blocking {
            let h = try Harness(arguments: ["--webhook-allow-private"])
            let (id, receiver) = try Self.webhookWithReceiver(h, delay: 60)
            try h.rule("pear", "bounce")
            let started = ContinuousClock.now
            for index in 0..<300 { #expect(try h.send("pear \(index)").status == 201) }
            let elapsed = ContinuousClock.now - started
            #expect(elapsed < .seconds(20), "300 sends took \(elapsed)")
            // At most four of its deliveries are attempted at once (on each instance); the rest wait.
            let metrics = try RawHTTPClient(port: h.service.port)
            var inFlight: [Int] = []
            for _ in 0..<100 where !inFlight.contains(4) || inFlight.count < 10 {
                let text = try metrics.request("GET", "/metrics").text
                let line = text.split(separator: "\n").first { $0.hasPrefix("bouncer_webhook_deliveries_in_flight ") }
                inFlight.append(line.flatMap { Int(Double($0.split(separator: " ")[1]) ?? -1) } ?? -1)
                Thread.sleep(forTimeInterval: 0.1)
            }
            #expect(inFlight.allSatisfy { $0 <= 4 } && inFlight.contains(4), "\(inFlight)")
            #expect(try Self.deliveries(h, id, "?state=delivered").isEmpty && receiver.records.count <= 4 * ServiceProcess.defaultInstances)
        }
    }
}
