import Foundation
import Locking

/// A new, empty PostgreSQL database for one test, on the cluster `make test` starts
/// (`BOUNCER_TEST_POSTGRES_URL`, see scripts/postgres-cluster.sh), dropped when released. Without
/// that cluster a test that needs one fails and says so: it never passes without PostgreSQL.
public final class PostgresTestDatabase: @unchecked Sendable {
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// The database's URL.
    public let url: String
    /// The same database through the pooler in transaction mode that scripts/with-pgbouncer.sh
    /// puts in front of the cluster (`BOUNCER_TEST_POSTGRES_POOLER_URL`), when there is one.
    public let pooledURL: String?
    public let name: String
    private let adminURL: String
    private let dropped = Locked(false)

    public init() throws {
        guard let admin = ProcessInfo.processInfo.environment["BOUNCER_TEST_POSTGRES_URL"], !admin.isEmpty else {
            throw Unavailable(description: "no PostgreSQL for this test: set BOUNCER_TEST_POSTGRES_URL to a cluster's URL "
                                + "(`make test` starts one with scripts/postgres-cluster.sh)")
        }
        adminURL = admin
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        self.name = name
        try Self.psql(admin, "CREATE DATABASE \(name)")
        guard let slash = admin.range(of: "/", options: .backwards) else { throw Unavailable(description: "not a URL: \(admin)") }
        url = String(admin[..<slash.upperBound]) + name
        let pooler = ProcessInfo.processInfo.environment["BOUNCER_TEST_POSTGRES_POOLER_URL"].flatMap { $0.isEmpty ? nil : $0 }
        pooledURL = pooler.flatMap { pooler in pooler.range(of: "/", options: .backwards).map { String(pooler[..<$0.upperBound]) + name } }
    }

    deinit {
        try? drop()
    }

    /// Drops the database now (a test in Swift concurrency calls it through `blocking`, as psql
    /// is a process waited for); the release after it does nothing more.
    public func drop() throws {
        guard dropped.withLock({ dropped in defer { dropped = true }; return !dropped }) else { return }
        try Self.psql(adminURL, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// Runs `sql` with psql against `url`; returns what it printed (unaligned, tuples only).
    @discardableResult
    public static func psql(_ url: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        process.arguments = ["--no-psqlrc", "--quiet", "--tuples-only", "--no-align", "--set", "ON_ERROR_STOP=1", "--dbname", url,
                             "--command", sql]
        let (status, output) = try process.runCapturingOutput()
        guard status == 0 else { throw Unavailable(description: "psql failed: \(output)") }
        return output
    }

    /// `pg_restore` of a dump into the (empty) database at `url`.
    public static func restore(_ dump: String, into url: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pg_restore")
        process.arguments = ["--no-owner", "--exit-on-error", "--dbname", url, dump]
        let (status, output) = try process.runCapturingOutput()
        guard status == 0 else { throw Unavailable(description: "pg_restore failed: \(output)") }
    }
}
