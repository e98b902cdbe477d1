import CSQLite

/// A prepared statement. It finalizes itself when released; a `Database` keeps the ones it
/// caches until it closes.
public final class Statement {
    typealias Handle = OpaquePointer

    let handle: Handle
    public let sql: String
    private unowned let database: Database

    init(database: Database, sql: String, persistent: Bool) throws(DatabaseError) {
        var handle: Handle?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sqlite3_prepare_v3(database.handle, sql, -1, flags, &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw DatabaseError(connection: database.handle, resultCode: code, sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    public lazy var columnNames: [String] = (0..<sqlite3_column_count(handle)).map {
        String(cString: sqlite3_column_name(handle, $0))
    }

    /// Resets the statement and binds `arguments` to its parameters, in order. There must be one
    /// for every parameter (the count is the largest index), so each is bound over its last value
    /// and clearing them all first would be a loop for nothing.
    public func bind(_ arguments: [DatabaseValue]) throws(DatabaseError) {
        sqlite3_reset(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard arguments.count == expected else {
            throw DatabaseError(resultCode: SQLITE_RANGE, message: "expected \(expected) arguments, got \(arguments.count)", sql: sql)
        }
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32 = switch value {
            case .null: sqlite3_bind_null(handle, index)
            case .integer(let int): sqlite3_bind_int64(handle, index, int)
            case .real(let double): sqlite3_bind_double(handle, index, double)
            case .text(var text): text.withUTF8 { utf8 in
                // An explicit length, so text with an embedded NUL is stored whole.
                UnsafeRawBufferPointer(utf8).withMemoryRebound(to: CChar.self) { chars in
                    guard let base = chars.baseAddress else {
                        // A zero-length text still needs a non-NULL pointer, or SQLite stores NULL.
                        return sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
                    }
                    return sqlite3_bind_text64(handle, index, base, sqlite3_uint64(chars.count), csqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
            case .blob(let bytes): bytes.withUnsafeBytes {
                sqlite3_bind_blob64(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64($0.count), csqlite_transient())
            }
            }
            guard code == SQLITE_OK else { throw DatabaseError(connection: database.handle, resultCode: code, sql: sql) }
        }
    }

    /// Advances to the next row: true when there is one, false when the statement is done.
    public func step() throws(DatabaseError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw DatabaseError(connection: database.handle, resultCode: code, sql: sql)
        }
    }

    /// The current row's column, copied out.
    public func value(at column: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let blob = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: blob, count: count)))
        default:
            return .null
        }
    }

    /// The current row, copied out.
    public func row() -> Row {
        let count = sqlite3_column_count(handle)
        return Row(columnNames: columnNames, values: (0..<count).map(value(at:)))
    }
}
