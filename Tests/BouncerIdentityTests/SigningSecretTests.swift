import Foundation
import Testing
import TestSupport
@testable import BouncerIdentity

@Suite struct SigningSecretTests {
    @Test func aGeneratedSecretIsPrivateAndReused() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path("data")
        let first = try SigningSecret.load(environmentValue: nil, file: nil, dataDirectory: data)
        #expect(first.source == .generated(data + "/jwt-secret"))
        #expect(first.key.count >= 32)
        #expect(first.warnings.isEmpty)
        let mode = try FileManager.default.attributesOfItem(atPath: data + "/jwt-secret")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let second = try SigningSecret.load(environmentValue: nil, file: nil, dataDirectory: data)
        #expect(second.key == first.key, "the secret survives a restart")
        // A token minted before the restart verifies after it.
        let token = TokenSigner(secret: first.key).token(for: Identity(userID: "u", role: .admin))
        #expect(try TokenVerifier(secret: second.key).verify(token).role == .admin)
    }

    @Test func aLooseFileModeIsReported() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path("data")
        _ = try SigningSecret.load(environmentValue: nil, file: nil, dataDirectory: data)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: data + "/jwt-secret")
        let loaded = try SigningSecret.load(environmentValue: nil, file: nil, dataDirectory: data)
        #expect(loaded.warnings.contains { $0.contains("readable by other users") })
    }

    @Test func theEnvironmentAndFilesAreUsedAsGiven() throws {
        let directory = try TemporaryDirectory()
        let fromEnvironment = try SigningSecret.load(environmentValue: "env-secret-env-secret-env-secret!", file: nil, dataDirectory: directory.path("data"))
        #expect(fromEnvironment.key == Array("env-secret-env-secret-env-secret!".utf8))
        #expect(fromEnvironment.source == .environment)
        #expect(!FileManager.default.fileExists(atPath: directory.path("data/jwt-secret")), "nothing is generated when a secret is given")

        try directory.write("secret.txt", "file-secret-file-secret-file-secret\n")
        let fromFile = try SigningSecret.load(environmentValue: nil, file: directory.path("secret.txt"), dataDirectory: directory.path("data"))
        #expect(fromFile.key == Array("file-secret-file-secret-file-secret".utf8), "the trailing newline is not part of the secret")

        let short = try SigningSecret.load(environmentValue: "short", file: nil, dataDirectory: directory.path("data"))
        #expect(short.warnings.count == 1)

        try directory.write("empty.txt", "\n")
        #expect(throws: SigningSecret.LoadError.self) {
            try SigningSecret.load(environmentValue: nil, file: directory.path("empty.txt"), dataDirectory: directory.path("data"))
        }
        #expect(throws: SigningSecret.LoadError.self) {
            try SigningSecret.load(environmentValue: nil, file: directory.path("absent.txt"), dataDirectory: directory.path("data"))
        }
    }
}
