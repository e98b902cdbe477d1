import Foundation

/// Applies migrations in order, each in its own transaction, and records each with its checksum
/// in `schema_migrations`. Before applying anything it checks that every applied migration is
/// still present and unchanged.
public struct Migrator: Sendable {
    public enum State: String, Sendable {
        case applied
        case pending
    }

    public struct Status: Sendable, Equatable {
        public var version: Int
        public var name: String
        public var state: State
        public var appliedAt: String?

        public init(version: Int, name: String, state: State, appliedAt: String?) {
            self.version = version
            self.name = name
            self.state = state
            self.appliedAt = appliedAt
        }
    }

    public let migrations: [Migration]

    public init(migrations: [Migration]) {
        self.migrations = migrations
    }

    package static let bookkeepingSQL = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version    INTEGER PRIMARY KEY,
            name       TEXT NOT NULL,
            checksum   TEXT NOT NULL,
            applied_at TEXT NOT NULL
        ) STRICT
        """

    /// A migration as `schema_migrations` recorded it.
    public struct Record: Sendable {
        public var name: String
        public var checksum: String
        public var appliedAt: String

        public init(name: String, checksum: String, appliedAt: String) {
            self.name = name
            self.checksum = checksum
            self.appliedAt = appliedAt
        }
    }

    /// Throws unless every applied migration is still among `migrations`, unchanged: for any
    /// store's migrator.
    public func verify(_ applied: [Int: Record]) throws {
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        for (version, record) in applied.sorted(by: { $0.key < $1.key }) {
            guard let migration = known[version] else {
                throw MigrationError.storeIsNewer(version: version, name: record.name)
            }
            if migration.checksum != record.checksum {
                throw MigrationError.changedAfterApplied(version: version, fileName: migration.fileName)
            }
        }
    }
}
