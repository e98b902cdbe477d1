import BouncerStore
import CSQLite

/// One SQLite connection. Not Sendable on purpose: a connection is used from one serial queue at a
/// time (the writer's, or one reader's), which is what makes it safe to open with NOMUTEX.
public final class SQLiteDatabase {
    typealias Handle = OpaquePointer

    public enum Mode: Sendable {
        case readWrite
        case readOnly
    }

    let handle: Handle
    public let path: String
    private var statementCache: [String: SQLiteStatement] = [:]
    /// The statements of `FrequentSQL`, by slot; nil until first run on this connection.
    private var frequentStatements: [SQLiteStatement?] = []
    private var savepointDepth = 0

    /// `vfs`: the name of a registered VFS, or nil for SQLite's default.
    public init(path: String, mode: Mode = .readWrite, vfs: String? = nil) throws(SQLiteError) {
        var handle: Handle?
        let flags = switch mode {
        case .readWrite: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readOnly: SQLITE_OPEN_READONLY
        }
        let code = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, vfs)
        guard code == SQLITE_OK, let handle else {
            var error = SQLiteError(connection: handle, resultCode: code)
            error.message = "cannot open \(path): \(error.message)"
            // A failed open still allocates a handle that must be closed.
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        self.path = path
    }

    private var isOpen = true

    deinit {
        close()
    }

    /// Finalizes cached statements and closes the connection now.
    public func close() {
        guard isOpen else { return }
        statementCache.removeAll()
        frequentStatements.removeAll()
        sqlite3_close_v2(handle)
        isOpen = false
    }

    // MARK: - Running SQL

    /// Runs one statement, or several separated by semicolons when there are no arguments.
    public func execute(_ sql: String, _ arguments: [DatabaseValue] = []) throws(SQLiteError) {
        if arguments.isEmpty {
            var message: UnsafeMutablePointer<CChar>?
            let code = sqlite3_exec(handle, sql, nil, nil, &message)
            if code != SQLITE_OK {
                let text = message.map { String(cString: $0) }
                sqlite3_free(message)
                throw SQLiteError(resultCode: sqlite3_extended_errcode(handle), message: text, sql: sql)
            }
            return
        }
        try run(cachedStatement(sql), arguments)
    }

    /// Runs one statement from the statement cache: for the fixed statements every write runs
    /// (BEGIN, SAVEPOINT, RELEASE, COMMIT), which are then parsed once per connection.
    public func executeCached(_ sql: String) throws(SQLiteError) {
        try run(cachedStatement(sql), [])
    }

    /// Runs one of the statements every write runs, with `arguments`.
    public func execute(_ frequent: FrequentSQL, _ arguments: [DatabaseValue] = []) throws(SQLiteError) {
        try run(cachedStatement(frequent), arguments)
    }

    /// Binds `arguments` (which resets the statement), steps it to its end, and resets it.
    private func run(_ statement: SQLiteStatement, _ arguments: [DatabaseValue]) throws(SQLiteError) {
        try statement.bind(arguments)
        while try statement.step() {}
        sqlite3_reset(statement.handle)
    }

    /// Rows of a query.
    public func fetchAll(_ sql: String, _ arguments: [DatabaseValue] = []) throws(SQLiteError) -> [Row] {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        var rows: [Row] = []
        while try statement.step() {
            rows.append(statement.row())
        }
        sqlite3_reset(statement.handle)
        return rows
    }

    /// Calls `body` with the statement at each row, for reads of many rows that take their
    /// columns by position without copying each row into a `Row` first.
    public func forEachRow(_ sql: String, _ arguments: [DatabaseValue] = [], _ body: (SQLiteStatement) throws -> Void) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        defer { sqlite3_reset(statement.handle) }
        while try statement.step() { try body(statement) }
    }

    public func fetchOne(_ sql: String, _ arguments: [DatabaseValue] = []) throws(SQLiteError) -> Row? {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        defer { sqlite3_reset(statement.handle) }
        return try statement.step() ? statement.row() : nil
    }

    /// The first column of the first row.
    public func fetchValue<T: DatabaseValueConvertible>(_ sql: String, _ arguments: [DatabaseValue] = [], as type: T.Type = T.self) throws(SQLiteError) -> T? {
        try fetchOne(sql, arguments).flatMap { T(databaseValue: $0[0]) }
    }

    /// A prepared statement kept for the life of the connection: prepared once, reused by every
    /// request that runs the same SQL.
    public func cachedStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = statementCache[sql] { return statement }
        let statement = try SQLiteStatement(database: self, sql: sql, persistent: true)
        statementCache[sql] = statement
        return statement
    }

    /// The statement of `frequent`, prepared on its first run on this connection.
    func cachedStatement(_ frequent: FrequentSQL) throws(SQLiteError) -> SQLiteStatement {
        if frequent.slot < frequentStatements.count, let statement = frequentStatements[frequent.slot] { return statement }
        let statement = try SQLiteStatement(database: self, sql: frequent.sql, persistent: true)
        if frequent.slot >= frequentStatements.count {
            frequentStatements.append(contentsOf: repeatElement(nil, count: frequent.slot + 1 - frequentStatements.count))
        }
        frequentStatements[frequent.slot] = statement
        return statement
    }

    /// A statement prepared for one use.
    public func makeStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(database: self, sql: sql, persistent: false)
    }

    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// The name of the VFS the connection was opened with.
    public var vfsName: String? {
        var vfs: UnsafeMutablePointer<sqlite3_vfs>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) == SQLITE_OK,
              let name = vfs?.pointee.zName else { return nil }
        return String(cString: name)
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: - Transactions

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func inTransaction<T>(immediate: Bool = true, _ body: (SQLiteDatabase) throws -> T) throws -> T {
        try executeCached(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let result = try body(self)
            try executeCached("COMMIT")
            return result
        } catch {
            if isInTransaction { try? executeCached("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a savepoint inside the current transaction: its changes are undone when it
    /// throws, and the rest of the transaction is kept.
    public func inSavepoint<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "sp\(savepointDepth)"
        try executeCached("SAVEPOINT \(name)")
        do {
            let result = try body(self)
            try executeCached("RELEASE \(name)")
            return result
        } catch {
            // Released only once rolled back: a release after a failed `ROLLBACK TO` would keep the
            // failed write's changes in the transaction, to be committed though reported failed.
            do {
                try executeCached("ROLLBACK TO \(name)")
            } catch let rollbackError {
                throw SQLiteError.savepointNotRolledBack(rollbackError)
            }
            try? executeCached("RELEASE \(name)")
            throw error
        }
    }
}
