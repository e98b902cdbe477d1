import BouncerClassifier
import BouncerApplication
import BouncerIdentity
import BouncerSQLite
import BouncerStore
import Foundation
import HTTPServer

/// Everything `bouncer serve` is configured with. The command line and environment fill it in;
/// tests build it directly.
public struct ServiceConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var dataDirectory = "./data"
    /// A PostgreSQL database (`postgres://user:password@host:port/database`) to keep everything
    /// in, shared by every instance given it; nil keeps the embedded SQLite store in the data
    /// directory.
    public var databaseURL: String?
    /// Where the listener for other instances' changes connects, when `databaseURL` goes through
    /// a pooler in transaction mode (PgBouncer), whose sessions cannot `LISTEN`: the database
    /// itself. nil listens through `databaseURL`.
    public var databaseListenURL: String?
    public var logLevel = Logger.Level.info
    public var limits = ServerLimits()
    /// Event loops serving connections; nil: one a core (see `HTTPServer.Configuration`).
    public var eventLoops: Int?
    /// How long a busy event loop looks for more work before it sleeps; nil: the server's default
    /// (see `HTTPServer.Configuration.pollBeforeSleep`).
    public var eventLoopPoll: Duration?
    public var store = StoreConfiguration()
    /// Where the migration files are; nil finds them beside the binary or in the source tree.
    public var migrationsDirectory: String?
    /// How long in-flight requests get to finish on SIGTERM before connections are closed.
    public var shutdownGracePeriod: Duration = .seconds(8)
    /// The token secret itself (`BOUNCER_JWT_SECRET`).
    public var jwtSecret: String?
    /// A file holding the token secret (`--jwt-secret-file`); wins over `jwtSecret`.
    public var jwtSecretFile: String?
    /// Messages a second each user may send (a burst of twice that); 0 turns the limit off.
    public var sendRatePerUser: Double = 10
    /// A directory of `<locale>.lproj/Localizable.strings` files overriding bundled texts.
    public var localizationDirectory: String?
    /// The locale of requests that ask for none Bouncer has.
    public var defaultLocale = "en"
    /// How long events are kept (`GET /v1/events` and the stream reach back this far).
    public var eventRetention: Duration = .seconds(7 * 86_400)
    /// How often an event stream sends a comment line (proxies close connections that stay silent).
    public var eventHeartbeat: Duration = .seconds(15)
    /// Loopback and private addresses are taken as webhook URLs.
    public var webhookAllowPrivate = false
    /// The wait before a failed webhook delivery's first retry (each later one waits three times longer).
    public var webhookFirstRetry: Duration = .seconds(5)

    /// Matrix homeservers (Synapse's `synapse-http-antispam` module) and Stream's Before Message
    /// Send hook: see `Integrations`.
    public var integrations = Integrations()

    public init() {}

    /// The harm-score model at start: `bundled`, `none`, or a model file's path.
    public var harmModel = "bundled"
    /// A labelled file every training through the API starts from (nil: none).
    public var harmTrainingData: String?

    /// The harm-score model configured (nil for `none`).
    public func loadHarmModel() throws -> HarmModel? {
        switch harmModel {
        case "none": return nil
        case "bundled", "": return BundledModel.model
        case let path:
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(description: "cannot read the harm model \(path) (--harm-model)")
            }
            do {
                return try ModelFile.decode([UInt8](data))
            } catch {
                throw ConfigurationError(description: "the harm model \(path) cannot be used: \(error.description)")
            }
        }
    }

    /// The token secret as configured, generated into the data directory when none is.
    public func loadSigningSecret() throws -> SigningSecret {
        try SigningSecret.load(environmentValue: jwtSecretFile == nil ? jwtSecret : nil, file: jwtSecretFile,
                               dataDirectory: dataDirectory)
    }

    public var storePath: String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("bouncer.sqlite3").path
    }
}

/// The chat servers Bouncer moderates for: each is on when its secrets are set.
public struct Integrations: Sendable {
    /// The bearer secret Synapse's module sends (`--matrix-secret`); nil: the Matrix routes are 404.
    public var matrixSecret: String?
    /// Answer 200 (allow) instead of 503 when the store cannot take a Matrix message.
    public var matrixFailOpen = false
    /// Where decisions go back to (`--matrix-homeserver-url`), with a bot account's token.
    public var matrixHomeserverURL: String?
    public var matrixAccessToken: String?
    /// Stream's app key and secret; without the secret the Stream route is 404.
    public var streamAPIKey: String?
    public var streamAPISecret: String?

    public init() {}

    var matrixEnabled: Bool { !(matrixSecret ?? "").isEmpty }
    var matrixFeedbackEnabled: Bool { !(matrixHomeserverURL ?? "").isEmpty && !(matrixAccessToken ?? "").isEmpty }
    var streamEnabled: Bool { !(streamAPISecret ?? "").isEmpty && !(streamAPIKey ?? "").isEmpty }
}

/// A setting that cannot be used; the service does not start.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var description: String
}
