import BouncerDomain
import BouncerIdentity
import Foundation

/// Tokens for the services the tests start, minted in the test's process as `bouncer token`
/// mints them: the same secret (`BOUNCER_JWT_SECRET` from the service's environment, else the
/// data directory's `jwt-secret`, made on first use), the same signer, an hour's lifetime. A
/// process for each token cost the suites a start of the binary each; `bouncer token` itself is
/// `TokenTests`' to test.
public enum TestTokens {
    public static func mint(_ user: String, role: Role = .user, dataDirectory: String,
                            environment: [String: String] = [:]) throws -> String {
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let secret = try SigningSecret.load(environmentValue: merged["BOUNCER_JWT_SECRET"], file: nil, dataDirectory: dataDirectory)
        return TokenSigner(secret: secret.key).token(for: Identity(userID: user, role: role))
    }

    /// As `mint`, with the role by its name (`user`, `moderator`, `admin`).
    public static func mint(_ user: String, role: String, dataDirectory: String, environment: [String: String] = [:]) throws -> String {
        guard let parsed = Role(rawValue: role) else { throw TestTokenError(role: role) }
        return try mint(user, role: parsed, dataDirectory: dataDirectory, environment: environment)
    }
}

struct TestTokenError: Error, CustomStringConvertible {
    var role: String
    var description: String { "no role \(role)" }
}
