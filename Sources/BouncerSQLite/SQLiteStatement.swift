import BouncerStore
import CSQLite

/// A prepared statement. It finalizes itself when released; a `SQLiteDatabase` keeps the ones it
/// caches until it closes.
public final class SQLiteStatement {
    typealias Handle = OpaquePointer

    let handle: Handle
    public let sql: String
    private unowned let database: SQLiteDatabase

    init(database: SQLiteDatabase, sql: String, persistent: Bool) throws(SQLiteError) {
        var handle: Handle?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sqlite3_prepare_v3(database.handle, sql, -1, flags, &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw SQLiteError(connection: database.handle, resultCode: code, sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.database = database
    }

    /// SQLite's virtual machine steps in this statement's runs since it was prepared: how much
    /// work a query did, whatever it returned.
    var virtualMachineSteps: Int { Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_VM_STEP, 0)) }

    deinit {
        sqlite3_finalize(handle)
        boundBytes.deallocate()
    }

    public lazy var columnNames: [String] = (0..<sqlite3_column_count(handle)).map {
        String(cString: sqlite3_column_name(handle, $0))
    }

    /// The bytes of the texts and blobs bound last, which SQLite reads in place (`SQLITE_STATIC`)
    /// until they are bound over or the statement is finalized: copying them into memory of its
    /// own would cost an allocation for each one on every run.
    private var boundBytes = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// Resets the statement and binds `arguments` to its parameters, in order. There must be one
    /// for every parameter (the count is the largest index), so each is bound over its last value
    /// and clearing them all first would be a loop for nothing.
    public func bind(_ arguments: [DatabaseValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard arguments.count == expected else {
            throw SQLiteError(resultCode: SQLITE_RANGE, message: "expected \(expected) arguments, got \(arguments.count)", sql: sql)
        }
        // Room for every text and blob first: growing the buffer later would move the bytes of
        // the parameters already bound.
        var needed: Int?
        for value in arguments {
            switch value {
            case .text(let text): needed = (needed ?? 0) + text.utf8.count
            case .blob(let bytes): needed = (needed ?? 0) + bytes.count
            case .null, .integer, .real: break
            }
        }
        if let needed { reserveBoundBytes(needed) }
        var offset = 0
        for (position, value) in arguments.enumerated() {
            let index = Int32(position + 1)
            let code: Int32 = switch value {
            case .null: sqlite3_bind_null(handle, index)
            case .integer(let int): sqlite3_bind_int64(handle, index, int)
            case .real(let double): sqlite3_bind_double(handle, index, double)
            case .text(var text): text.withUTF8 { utf8 in
                // An explicit length, so text with an embedded NUL is stored whole.
                sqlite3_bind_text64(handle, index, store(UnsafeRawBufferPointer(utf8), at: &offset), sqlite3_uint64(utf8.count), nil, UInt8(SQLITE_UTF8))
            }
            case .blob(let bytes): bytes.withUnsafeBytes {
                sqlite3_bind_blob64(handle, index, store($0, at: &offset), sqlite3_uint64($0.count), nil)
            }
            }
            guard code == SQLITE_OK else { throw SQLiteError(connection: database.handle, resultCode: code, sql: sql) }
        }
    }

    private func reserveBoundBytes(_ count: Int) {
        guard count > boundBytes.count || boundBytes.baseAddress == nil else { return }
        let capacity = max(count, 2 * boundBytes.count, 256)
        boundBytes.deallocate()
        boundBytes = .allocate(byteCount: capacity, alignment: 8)
    }

    /// Copies `bytes` into the bound bytes at `offset` and moves past them. Never NULL, even for
    /// no bytes: SQLite binds a NULL pointer as SQL NULL, not as an empty text.
    private func store(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> UnsafeMutableRawPointer {
        let start = boundBytes.baseAddress! + offset
        if let source = bytes.baseAddress { start.copyMemory(from: source, byteCount: bytes.count) }
        offset += bytes.count
        return start
    }

    /// Advances to the next row: true when there is one, false when the statement is done.
    public func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw SQLiteError(connection: database.handle, resultCode: code, sql: sql)
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
