import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerService

/// `bouncer token`: prints a token signed with the configured secret, to try the API with curl.
enum TokenCommand {
    static let options: [OptionSpec] = [
        OptionSpec(name: "user", environment: nil, valueName: "ID", help: "the user id the token speaks for (required)"),
        OptionSpec(name: "role", environment: nil, valueName: "ROLE", help: "user (default), moderator or admin"),
        OptionSpec(name: "ttl", environment: nil, valueName: "SECONDS", help: "how long the token is valid (default 3600)"),
    ] + ServeCommand.storeOptions.filter { $0.name == "data-dir" } + ServeCommand.secretOptions + [
        OptionSpec(name: "help", environment: nil, valueName: nil, help: "show this help"),
    ]

    static let help = """
        Usage: bouncer token --user ID [--role user|moderator|admin] [--ttl SECONDS] [options]

        Prints a token signed with the same secret `bouncer serve` uses (same flags and variables),
        generating the secret into <data-dir>/jwt-secret when none is configured yet.

          curl -H "Authorization: Bearer $(bouncer token --user alice)" http://127.0.0.1:8080/v1/me

        Options:
        \(optionsHelp(options))
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let parsed = try ParsedOptions.forCommand(arguments, specs: options, help: help) else { return 0 }
        guard let user = parsed.values["user"] else { throw UsageError(description: "--user is required") }
        guard UserID.isValid(user) else {
            throw UsageError(description: "--user must be 1-\(UserID.maxLength) characters of A-Z a-z 0-9 _ . @ : | = + -")
        }
        guard !UserID.reserved.contains(user) else { throw UsageError(description: "--user \(user) is reserved for the service itself") }
        let roleName = parsed.values["role"] ?? "user"
        guard let role = Role(rawValue: roleName) else { throw UsageError(description: "--role must be user, moderator or admin, not \(roleName)") }
        let ttl = try parsed.int("ttl", in: 1...(366 * 24 * 3600)) ?? 3600
        var configuration = ServiceConfiguration()
        ServeCommand.applyStoreOptions(parsed, to: &configuration)
        ServeCommand.applySecretOptions(parsed, to: &configuration)
        let secret = try configuration.loadSigningSecret()
        for warning in secret.warnings { standardError("bouncer token: warning: \(warning)") }
        print(TokenSigner(secret: secret.key).token(for: Identity(userID: user, role: role), lifetime: Double(ttl)))
        return 0
    }
}
