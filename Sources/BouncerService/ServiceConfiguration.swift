import BouncerStore
import Foundation
import HTTPServer

/// Everything `bouncer serve` is configured with. The command line and environment fill it in;
/// tests build it directly.
public struct ServiceConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var dataDirectory = "./data"
    public var logLevel = Logger.Level.info
    public var limits = ServerLimits()
    public var store = StoreConfiguration()
    /// Where the migration files are; nil finds them beside the binary or in the source tree.
    public var migrationsDirectory: String?
    /// How long in-flight requests get to finish on SIGTERM before connections are closed.
    public var shutdownGracePeriod: Duration = .seconds(8)

    public init() {}

    public var storePath: String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("bouncer.sqlite3").path
    }
}
