import BouncerStore
import CSQLite

/// A failed SQLite call. It carries the result codes and the SQL that failed, never the values
/// bound to it: those are user data and stay out of logs.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, ...).
    public var resultCode: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, ...).
    public var extendedResultCode: Int32
    public var message: String
    public var sql: String?
    /// Set where a write's changes may be left in its transaction (see `failsTransaction`).
    var leftChangesBehind = false

    public init(resultCode: Int32, message: String? = nil, sql: String? = nil) {
        self.extendedResultCode = resultCode
        self.resultCode = resultCode & 0xFF
        self.message = message ?? String(cString: sqlite3_errstr(resultCode))
        self.sql = sql
    }

    init(connection: OpaquePointer?, resultCode: Int32, sql: String? = nil) {
        let message = connection.map { String(cString: sqlite3_errmsg($0)) }
        self.init(resultCode: connection.map { sqlite3_extended_errcode($0) } ?? resultCode, message: message, sql: sql)
    }

    // SQLITE_CONSTRAINT_UNIQUE and _PRIMARYKEY are macro expressions Swift cannot import.
    static let constraintUnique: Int32 = SQLITE_CONSTRAINT | (8 << 8)
    static let constraintPrimaryKey: Int32 = SQLITE_CONSTRAINT | (6 << 8)

    /// A group commit's transaction ended under one of its writes (SQLite rolls the whole of it
    /// back on some errors): every write of the group fails with this.
    static let groupRolledBack = SQLiteError(
        resultCode: SQLITE_ABORT, message: "a write's error rolled back its group's transaction; no write of the group was kept")

    /// The same, carrying the storage failure that caused it, so every write of the group is
    /// told the store is unavailable rather than that something unknown went wrong.
    static func groupRolledBack(after cause: SQLiteError?) -> SQLiteError {
        guard let cause, cause.isUnavailable else { return groupRolledBack }
        return SQLiteError(resultCode: cause.extendedResultCode,
                             message: "\(cause.message): its group's transaction was rolled back; no write of the group was kept")
    }

    /// A savepoint's `ROLLBACK TO` failed: its write's changes could not be undone, so its group
    /// must not commit.
    static func savepointNotRolledBack(_ cause: SQLiteError) -> SQLiteError {
        var error = SQLiteError(resultCode: cause.extendedResultCode,
                                  message: "a failed write could not be undone (\(cause.message)); its group was not committed")
        error.leftChangesBehind = true
        return error
    }

    /// The storage failed under the connection (a full disk, an I/O error, no memory, a damaged
    /// file): what the connection holds may not be what SQLite believes, so the transaction it
    /// happened in must not commit, whatever the statement's own outcome.
    public var isStorageFailure: Bool {
        resultCode == SQLITE_FULL || resultCode == SQLITE_IOERR || resultCode == SQLITE_NOMEM || resultCode == SQLITE_CORRUPT
            || resultCode == SQLITE_NOTADB || resultCode == SQLITE_CANTOPEN
    }

    /// The transaction this happened in must not commit.
    public var failsTransaction: Bool { isStorageFailure || leftChangesBehind }

    /// Worth retrying soon: the storage is out of space or failing, or the file is locked.
    public var isUnavailable: Bool { isStorageFailure || resultCode == SQLITE_BUSY || resultCode == SQLITE_LOCKED }

    public var isUniqueConstraintViolation: Bool {
        extendedResultCode == Self.constraintUnique || extendedResultCode == Self.constraintPrimaryKey
    }

    public var description: String {
        var text = "SQLite error \(extendedResultCode): \(message)"
        if let sql { text += " (while running: \(sql))" }
        return text
    }
}
