import BouncerDomain
import BouncerStore

/// Applying migrations to a SQLite file.
extension Migrator {
    /// Every known migration with its state. Throws when the store and the files disagree.
    public func status(of database: SQLiteDatabase) throws -> [Status] {
        try database.execute(Self.bookkeepingSQL)
        let applied = try appliedRecords(database)
        try verify(applied)
        return migrations.map { migration in
            let record = applied[migration.version]
            return Status(version: migration.version, name: migration.name,
                          state: record == nil ? .pending : .applied, appliedAt: record?.appliedAt)
        }
    }

    /// Applies every pending migration; returns those it applied.
    @discardableResult
    public func migrate(_ database: SQLiteDatabase, now: () -> String = Timestamp.now) throws -> [Migration] {
        try database.execute(Self.bookkeepingSQL)
        let applied = try appliedRecords(database)
        try verify(applied)
        var done: [Migration] = []
        // SQLite's way to rebuild a table (new table, copy, drop the old, rename) needs foreign
        // keys off while it runs, or dropping the old table would cascade into every table that
        // refers to it. They are off for each migration's transaction (the pragma cannot change
        // inside one), checked before its commit, and back as they were after.
        let enforcingForeignKeys = try database.fetchValue("PRAGMA foreign_keys", as: Int.self) == 1
        if enforcingForeignKeys { try database.execute("PRAGMA foreign_keys = OFF") }
        defer { if enforcingForeignKeys { try? database.execute("PRAGMA foreign_keys = ON") } }
        for migration in migrations where applied[migration.version] == nil {
            do {
                try database.inTransaction { database in
                    try database.execute(migration.sql)
                    if try !database.fetchAll("PRAGMA foreign_key_check").isEmpty {
                        throw MigrationError.foreignKeyViolation(fileName: migration.fileName)
                    }
                    try database.execute(
                        "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                        [.integer(Int64(migration.version)), .text(migration.name), .text(migration.checksum), .text(now())])
                    try database.execute("PRAGMA user_version = \(migration.version)")
                }
            } catch let error as MigrationError {
                throw error
            } catch {
                throw MigrationError.failed(fileName: migration.fileName, reason: String(describing: error))
            }
            done.append(migration)
        }
        return done
    }

    private func appliedRecords(_ database: SQLiteDatabase) throws -> [Int: Record] {
        var records: [Int: Record] = [:]
        for row in try database.fetchAll("SELECT version, name, checksum, applied_at FROM schema_migrations") {
            records[try row.decode("version")] = Record(name: try row.decode("name"), checksum: try row.decode("checksum"),
                                                      appliedAt: try row.decode("applied_at"))
        }
        return records
    }
}
