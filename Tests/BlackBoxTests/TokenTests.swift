import Foundation
import Testing
import TestSupport

@Suite struct TokenTests {
    static func me(_ service: ServiceProcess, token: String?) throws -> RawResponse {
        try service.client().request("GET", "/v1/me", headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }

    @Test func aMintedTokenIsAcceptedAcrossARestart() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let data = directory.path("data")
            let minted = try ServiceProcess.run(["token", "--user", "alice", "--role", "moderator", "--data-dir", data])
            #expect(minted.status == 0)
            let token = minted.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(token.split(separator: ".").count == 3)
            let mode = try FileManager.default.attributesOfItem(atPath: data + "/jwt-secret")[.posixPermissions] as? Int
            #expect(mode == 0o600)

            for _ in 0..<2 {
                let service = try ServiceProcess(arguments: ["--data-dir", data])
                let response = try Self.me(service, token: token)
                #expect(response.status == 200)
                #expect(response.json?["user_id"] as? String == "alice")
                #expect(response.json?["role"] as? String == "moderator")
                #expect(service.stop() == 0, "\(service.outputTail)")
                let secret = try String(contentsOfFile: data + "/jwt-secret", encoding: .utf8).trimmingCharacters(in: .newlines)
                #expect(!service.text.contains(secret), "the secret never reaches the log")
                #expect(!service.text.contains(token), "nor does the token")
            }
        }
    }

    @Test func theEnvironmentSecretSignsAndVerifies() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let secret = "a-secret-given-by-the-environment-123"
            let environment = ["BOUNCER_JWT_SECRET": secret]
            let minted = try ServiceProcess.run(["token", "--user", "bob", "--data-dir", directory.path("data")], environment: environment)
            let token = minted.output.trimmingCharacters(in: .whitespacesAndNewlines)
            let service = try ServiceProcess(arguments: ["--data-dir", directory.path("data")], environment: environment)
            #expect(try Self.me(service, token: token).status == 200)
            #expect(!FileManager.default.fileExists(atPath: directory.path("data/jwt-secret")))
            #expect(!service.text.contains(secret))

            // A token from a server with another secret is refused.
            let otherData = directory.path("other")
            let foreign = try ServiceProcess.run(["token", "--user", "bob", "--data-dir", otherData])
            let refused = try Self.me(service, token: foreign.output.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(refused.status == 401)
            #expect(refused.header("WWW-Authenticate") == #"Bearer realm="bouncer", error="invalid_token""#)
            #expect(refused.json?["code"] as? String == "invalid_token")
            let missing = try Self.me(service, token: nil)
            #expect(missing.status == 401)
            #expect(missing.json?["code"] as? String == "unauthenticated")
        }
    }

    @Test func tokenCommandUsage() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let data = ["--data-dir", directory.path("data")]
            #expect(try ServiceProcess.run(["token"] + data).status == 64)
            #expect(try ServiceProcess.run(["token", "--user", "bad id"] + data).status == 64)
            #expect(try ServiceProcess.run(["token", "--user", "u", "--role", "root"] + data).status == 64)
            #expect(try ServiceProcess.run(["token", "--user", "u", "--ttl", "0"] + data).status == 64)
            let help = try ServiceProcess.run(["token", "--help"])
            #expect(help.status == 0 && help.output.contains("--jwt-secret-file"))
        }
    }
}
