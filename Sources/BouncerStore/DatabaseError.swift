import CSQLite

/// A failed SQLite call. It carries the result codes and the SQL that failed, never the values
/// bound to it: those are user data and stay out of logs.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, ...).
    public var resultCode: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, ...).
    public var extendedResultCode: Int32
    public var message: String
    public var sql: String?

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
    static let groupRolledBack = DatabaseError(
        resultCode: SQLITE_ABORT, message: "a write's error rolled back its group's transaction; no write of the group was kept")

    public var isUniqueConstraintViolation: Bool {
        extendedResultCode == Self.constraintUnique || extendedResultCode == Self.constraintPrimaryKey
    }

    public var description: String {
        var text = "SQLite error \(extendedResultCode): \(message)"
        if let sql { text += " (while running: \(sql))" }
        return text
    }
}
