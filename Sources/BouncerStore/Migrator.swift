import Foundation
import Locking

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
    }

    public let migrations: [Migration]

    public init(migrations: [Migration]) {
        self.migrations = migrations
    }

    static let bookkeepingSQL = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version    INTEGER PRIMARY KEY,
            name       TEXT NOT NULL,
            checksum   TEXT NOT NULL,
            applied_at TEXT NOT NULL
        ) STRICT
        """

    /// Every known migration with its state. Throws when the store and the files disagree.
    public func status(of database: Database) throws -> [Status] {
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
    public func migrate(_ database: Database, now: () -> String = Timestamp.now) throws -> [Migration] {
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

    private struct Record {
        var name: String
        var checksum: String
        var appliedAt: String
    }

    private func appliedRecords(_ database: Database) throws -> [Int: Record] {
        var records: [Int: Record] = [:]
        for row in try database.fetchAll("SELECT version, name, checksum, applied_at FROM schema_migrations") {
            records[row.get("version") ?? 0] = Record(name: row.get("name") ?? "", checksum: row.get("checksum") ?? "",
                                                      appliedAt: row.get("applied_at") ?? "")
        }
        return records
    }

    private func verify(_ applied: [Int: Record]) throws {
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

/// RFC 3339 timestamps in UTC with milliseconds, the one format the service stores and returns.
public enum Timestamp {
    public static func now() -> String {
        String(unsafeUninitializedCapacity: length) { writeNow(into: $0) }
    }

    /// Appends the time now, as `now()` writes it, without making a string of it first.
    public static func appendNow(to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { buffer in
            bytes.append(contentsOf: buffer.prefix(writeNow(into: buffer)))
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    private static let length = 24

    private static func writeNow(into bytes: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let seconds = Int(spec.tv_sec)
        let milliseconds = Int(spec.tv_nsec) / 1_000_000
        // Every stored row and log line asks for the time: the part up to the second is
        // formatted once a second, the milliseconds each time.
        let prefix = secondPrefix.withLock { cached -> [UInt8] in
            if cached.second != seconds {
                cached = (seconds, Array(format(seconds: seconds, milliseconds: 0).utf8.prefix(20)))
            }
            return cached.prefix
        }
        _ = bytes.initialize(from: prefix)
        bytes[prefix.count] = UInt8(48 + milliseconds / 100)
        bytes[prefix.count + 1] = UInt8(48 + milliseconds / 10 % 10)
        bytes[prefix.count + 2] = UInt8(48 + milliseconds % 10)
        bytes[prefix.count + 3] = UInt8(ascii: "Z")
        return prefix.count + 4
    }

    private static let secondPrefix = Locked<(second: Int, prefix: [UInt8])>((-1, []))

    public static func format(_ date: Date) -> String {
        // Whole milliseconds first, so 0.999 s (not exactly representable) stays 999 ms.
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, remainder) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        return remainder >= 0 ? format(seconds: seconds, milliseconds: remainder) : format(seconds: seconds - 1, milliseconds: remainder + 1000)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, written digit by digit: this runs for every stored row and
    /// every log line.
    public static func format(seconds: Int, milliseconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var bytes = [UInt8](repeating: 0, count: 24)
        func put(_ value: Int, at offset: Int, digits: Int) {
            var value = value
            for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                bytes[index] = UInt8(48 + value % 10)
                value /= 10
            }
        }
        put(Int(parts.tm_year) + 1900, at: 0, digits: 4)
        bytes[4] = UInt8(ascii: "-")
        put(Int(parts.tm_mon) + 1, at: 5, digits: 2)
        bytes[7] = UInt8(ascii: "-")
        put(Int(parts.tm_mday), at: 8, digits: 2)
        bytes[10] = UInt8(ascii: "T")
        put(Int(parts.tm_hour), at: 11, digits: 2)
        bytes[13] = UInt8(ascii: ":")
        put(Int(parts.tm_min), at: 14, digits: 2)
        bytes[16] = UInt8(ascii: ":")
        put(Int(parts.tm_sec), at: 17, digits: 2)
        bytes[19] = UInt8(ascii: ".")
        put(milliseconds, at: 20, digits: 3)
        bytes[23] = UInt8(ascii: "Z")
        return String(decoding: bytes, as: UTF8.self)
    }
}
