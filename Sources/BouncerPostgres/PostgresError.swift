/// A failed PostgreSQL call: the server's SQLSTATE and message, or libpq's when the connection
/// itself failed. It carries the SQL that failed, never the values bound to it: those are user
/// data and stay out of logs.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505` unique violation, ...); nil when no server answered.
    public var sqlState: String?
    public var message: String
    public var sql: String?
    /// The connection is gone (the server restarted, the network failed): a new one is needed.
    public var connectionLost: Bool

    public init(sqlState: String?, message: String, sql: String? = nil, connectionLost: Bool = false) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
        self.connectionLost = connectionLost
    }

    public var description: String {
        var text = "PostgreSQL"
        if let sqlState { text += " \(sqlState)" }
        text += ": " + message
        if let sql { text += " (in: \(sql))" }
        return text
    }

    /// The store cannot serve now (the server is down, restarting, out of space or connections):
    /// a client should hear 503 `store_unavailable` and try again, rather than an error of its own.
    public var isUnavailable: Bool {
        if connectionLost { return true }
        guard let sqlState else { return true }
        // Class 08 connection exceptions, 53 insufficient resources, 57P01-57P03 shutdown and
        // cannot-connect-now, 58 system errors (I/O).
        return sqlState.hasPrefix("08") || sqlState.hasPrefix("53") || sqlState.hasPrefix("58")
            || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// Two transactions could not both commit as they ran: the whole transaction may be retried.
    public var isSerializationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }

    public var isConflict: Bool { isSerializationFailure }

    /// A prepared statement the connection counted on is not on the server session (26000): what
    /// a pooler in transaction mode, which hands each transaction whichever server session is
    /// free, does to statements prepared through it.
    public var isMissingPreparedStatement: Bool { sqlState == "26000" }
}
