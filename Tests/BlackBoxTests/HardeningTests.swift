import Foundation
import Testing
import TestSupport

/// What an attacker would try first, answered: answers a browser must not sniff, frame or keep,
/// webhook URLs (which carry their receivers' secrets) kept to admins, the service's own id
/// that no token may claim.
@Suite(.oneInstance) struct HardeningTests {
    typealias Harness = BlackBoxHarness

    @Test func everyAnswerSaysNotToSniffFrameOrStoreIt() async throws {
        let h = try await blocking { try Harness() }
        try await blocking {
            for (path, user) in [("/healthz", nil), ("/v1/me", "alice"), ("/v1/messages/nothing", "alice"), ("/dashboard", nil)] as [(String, String?)] {
                let response = try user.map { try h.call("GET", path, as: $0) } ?? h.client.request("GET", path)
                #expect(response.header("X-Content-Type-Options") == "nosniff", "\(path)")
                #expect(response.header("X-Frame-Options") == "DENY", "\(path)")
                #expect(response.headerValues("Cache-Control").count == 1, "\(path)")
            }
            #expect(try h.call("GET", "/v1/me", as: "alice").header("Cache-Control") == "no-store")
            #expect(try h.call("GET", "/v1/channels/messaging:general/messages", as: "alice").header("Cache-Control") == "no-store")
            #expect(try h.client.request("GET", "/dashboard").header("Cache-Control") == "no-cache", "the dashboard's own")
        }
    }

    @Test func webhookURLsInTheAuditAreForAdminsOnly() async throws {
        let h = try await blocking { try Harness(arguments: ["--webhook-allow-private"]) }
        try await blocking {
            let secretURL = "http://127.0.0.1:9/hook?token=receiver-secret"
            #expect(try h.call("POST", "/v1/webhooks", as: "root", body: #"{"url":"\#(secretURL)","types":["*"]}"#).status == 201)
            let forModerators = try h.call("GET", "/v1/audit?action=webhook.create", as: "mod")
            #expect(forModerators.status == 200)
            #expect(forModerators.text.contains("webhook.create"))
            #expect(!forModerators.text.contains("receiver-secret"), "\(forModerators.text)")
            #expect(try h.call("GET", "/v1/audit?action=webhook.create", as: "root").text.contains("receiver-secret"))
        }
    }

    @Test func noTokenIsMintedForTheServicesOwnID() throws {
        let directory = try TemporaryDirectory()
        let refused = try ServiceProcess.run(["token", "--user", "system", "--data-dir", directory.path("data")])
        #expect(refused.status != 0)
        #expect(refused.output.contains("reserved"), "\(refused.output)")
    }
}
