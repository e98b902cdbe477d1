import BouncerDomain
import BouncerStore

/// Applies PostgreSQL's migrations (`migrations/postgres/`) as `Migrator` applies SQLite's: in
/// order, each in its own transaction, each recorded with its checksum in `schema_migrations`,
/// after checking that every applied one is still present and unchanged. Instances that start at
/// once take turns under an advisory lock held by each migration's transaction, so each
/// migration is applied once.
public struct PostgresMigrator: Sendable {
    public let migrator: Migrator

    public init(migrations: [Migration]) {
        migrator = Migrator(migrations: migrations)
    }

    /// Any number that no other user of the database locks: "bouncer" in ASCII.
    static let lockKey: Int64 = 0x626F_756E_6365_72

    static let bookkeepingSQL = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version    INTEGER PRIMARY KEY,
            name       TEXT NOT NULL,
            checksum   TEXT NOT NULL,
            applied_at TEXT NOT NULL
        )
        """

    public func status(of connection: PostgresConnection) throws -> [Migrator.Status] {
        try connection.executeScript(Self.bookkeepingSQL)
        let applied = try appliedRecords(connection)
        try migrator.verify(applied)
        return migrator.migrations.map { migration in
            let record = applied[migration.version]
            return Migrator.Status(version: migration.version, name: migration.name,
                                   state: record == nil ? .pending : .applied, appliedAt: record?.appliedAt)
        }
    }

    /// Applies every pending migration; returns those it applied. Each is applied in a
    /// transaction of its own that first takes the advisory lock for the transaction's length
    /// (`pg_advisory_xact_lock`) and reads what is applied anew: a session's lock would outlive
    /// its unlock behind a pooler in transaction mode, whose next transaction may run on another
    /// server connection.
    @discardableResult
    public func migrate(_ connection: PostgresConnection, now: () -> String = Timestamp.now) throws -> [Migration] {
        var done: [Migration] = []
        while true {
            try connection.executeScript("BEGIN")
            do {
                try connection.execute("SELECT pg_advisory_xact_lock(?)", [.integer(Self.lockKey)])
                try connection.executeScript(Self.bookkeepingSQL)
                let applied = try appliedRecords(connection)
                try migrator.verify(applied)
                guard let migration = migrator.migrations.first(where: { applied[$0.version] == nil }) else {
                    try connection.executeScript("COMMIT")
                    return done
                }
                do {
                    try connection.executeScript(migration.sql)
                    try connection.execute("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                                           [.integer(Int64(migration.version)), .text(migration.name), .text(migration.checksum), .text(now())])
                    try connection.executeScript("COMMIT")
                } catch {
                    throw MigrationError.failed(fileName: migration.fileName, reason: String(describing: error))
                }
                done.append(migration)
            } catch {
                _ = try? connection.executeScript("ROLLBACK")
                throw error
            }
        }
    }

    private func appliedRecords(_ connection: PostgresConnection) throws -> [Int: Migrator.Record] {
        var records: [Int: Migrator.Record] = [:]
        for row in try connection.fetchAll("SELECT version, name, checksum, applied_at FROM schema_migrations") {
            records[try row.decode("version")] = Migrator.Record(name: try row.decode("name"), checksum: try row.decode("checksum"),
                                                               appliedAt: try row.decode("applied_at"))
        }
        return records
    }
}
