import BouncerStore
import CLibPQ
import Glibc

/// One libpq connection, used by one thread at a time (its owner's serial queue). Statements go
/// out with the extended protocol (`PQexecParams`): SQL is sent apart from its values, which
/// travel as text. Results come back as `Row`s of `DatabaseValue`s, typed by the columns' types, so
/// the rows the SQLite store reads and these read the same way.
public final class PostgresConnection: SQLConnection {
    private var handle: OpaquePointer?
    public let url: String
    /// Rows changed by the last statement.
    public private(set) var changes = 0
    /// The statements prepared on this connection (`pipeline(_:prepared: true)`), each by its SQL:
    /// the server keeps their parse and plan for the connection's life.
    private var preparedNames: [String: String] = [:]

    /// Connects to `url` (`postgres://user:password@host:port/database`, or any libpq
    /// connection string).
    public init(url: String) throws(PostgresError) {
        self.url = url
        handle = PQconnectdb(url)
        guard PQstatus(handle) == CONNECTION_OK else {
            let error = PostgresError(sqlState: nil, message: Self.message(handle), connectionLost: true)
            PQfinish(handle)
            handle = nil
            throw error
        }
        // Messages of NOTICE level (an `IF NOT EXISTS` that found something) are not errors and
        // would go to stderr: the log is the service's.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { close() }

    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Whether the connection is usable; false once the server went away.
    public var isOpen: Bool { handle != nil && PQstatus(handle) == CONNECTION_OK }

    /// Runs one statement: `?` placeholders (as in the SQLite store's SQL) or `$n` ones, with
    /// `arguments` bound in order.
    public func execute(_ sql: String, _ arguments: [DatabaseValue]) throws(PostgresError) {
        _ = try query(sql, arguments)
    }

    /// As `execute`, returning the rows the statement returned and how many it changed.
    @discardableResult
    public func query(_ sql: String, _ arguments: [DatabaseValue] = []) throws(PostgresError) -> PostgresResult {
        guard let handle else { throw PostgresError(sqlState: nil, message: "the connection is closed", sql: sql, connectionLost: true) }
        let text = PlaceholderRewriter.numbered(sql)
        let values: [String?] = arguments.map(Self.text)
        let result: OpaquePointer? = Self.withCStrings(values) { pointers in
            PQexecParams(handle, text, Int32(values.count), nil, pointers, nil, nil, 0)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            let outcome = PostgresResult(result)
            changes = outcome.changes
            return outcome
        default:
            throw error(result, sql: sql)
        }
    }

    /// Runs `statements` in order in one round trip (libpq's pipeline mode: every statement is
    /// sent, then one sync, then every result is read), returning each statement's result. The
    /// first failure is thrown once the round trip is over; the server skipped every statement
    /// after it, so a transaction begun by the first statement is left failed, to be rolled back.
    ///
    /// `prepared`: each statement runs as one prepared on this connection, which the first use
    /// prepares (a round trip, before the pipeline), so the server parses and plans it once a
    /// connection instead of once a use. Only for a connection that is one server session: behind
    /// a pooler in transaction mode the statement may be missing (`isMissingPreparedStatement`),
    /// and the connection then forgets what it prepared, to prepare it again next time.
    public func pipeline(_ statements: [(sql: String, arguments: [DatabaseValue])], prepared: Bool = false) throws(PostgresError) -> [PostgresResult] {
        guard let handle else { throw PostgresError(sqlState: nil, message: "the connection is closed", connectionLost: true) }
        let names = prepared ? try statements.map { statement throws(PostgresError) in try preparedName(statement.sql) } : nil
        guard PQenterPipelineMode(handle) == 1 else { throw PostgresError(sqlState: nil, message: Self.message(handle), connectionLost: !isOpen) }
        defer { PQexitPipelineMode(handle) }
        for (index, statement) in statements.enumerated() {
            let values: [String?] = statement.arguments.map(Self.text)
            let sent = Self.withCStrings(values) { pointers in
                if let names {
                    PQsendQueryPrepared(handle, names[index], Int32(values.count), pointers, nil, nil, 0)
                } else {
                    PQsendQueryParams(handle, PlaceholderRewriter.numbered(statement.sql), Int32(values.count), nil, pointers, nil, nil, 0)
                }
            }
            guard sent == 1 else { throw lostInPipeline(statement.sql) }
        }
        guard PQpipelineSync(handle) == 1 else { throw lostInPipeline(nil) }
        var results: [PostgresResult] = []
        var failure: PostgresError?
        // Each statement's result, each followed by a nil, then the sync's own result.
        for statement in statements {
            guard let result = PQgetResult(handle) else { throw lostInPipeline(statement.sql) }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                results.append(PostgresResult(result))
            case PGRES_PIPELINE_ABORTED:
                break
            default:
                if failure == nil { failure = error(result, sql: statement.sql) }
            }
            PQclear(result)
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        guard let sync = PQgetResult(handle) else { throw lostInPipeline(nil) }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        guard synced else { throw failure ?? lostInPipeline(nil) }
        if let failure {
            // The server no longer has something this connection prepared: prepare anew next
            // time (what it still has answers that the name is taken, which is as good).
            if failure.isMissingPreparedStatement { preparedNames = [:] }
            throw failure
        }
        if let last = results.last { changes = last.changes }
        return results
    }

    /// The name of `sql` prepared on this connection, preparing it on first use. The name is
    /// made from the statement's text alone (`statementName`), so it means the same statement
    /// on every connection of every instance: a server session that has it already (42P05, the
    /// name is taken: prepared before on this session, or through a pooler by another client)
    /// has this very statement.
    private func preparedName(_ sql: String) throws(PostgresError) -> String {
        if let name = preparedNames[sql] { return name }
        let text = PlaceholderRewriter.numbered(sql)
        let name = Self.statementName(text)
        let result = PQprepare(handle, name, text, 0, nil)
        defer { PQclear(result) }
        if PQresultStatus(result) != PGRES_COMMAND_OK {
            let failure = error(result, sql: sql)
            guard failure.sqlState == "42P05" else { throw failure }
        }
        preparedNames[sql] = name
        return name
    }

    /// `bouncer_` and the 64-bit FNV-1a hash of the statement's text, in hex: the same for the same
    /// text in every process (Swift's own hashing is seeded per process).
    static func statementName(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return "bouncer_" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    private func lostInPipeline(_ sql: String?) -> PostgresError {
        PostgresError(sqlState: nil, message: Self.message(handle), sql: sql, connectionLost: true)
    }

    /// Runs statements that take no values, separated by semicolons, in one round trip (the
    /// simple query protocol): migrations, transaction control.
    public func executeScript(_ sql: String) throws(PostgresError) {
        guard let handle else { throw PostgresError(sqlState: nil, message: "the connection is closed", sql: sql, connectionLost: true) }
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default: throw error(result, sql: sql.count > 200 ? String(sql.prefix(200)) + "..." : sql)
        }
    }

    public func fetchAll(_ sql: String, _ arguments: [DatabaseValue]) throws(PostgresError) -> [Row] {
        try query(sql, arguments).rows
    }

    /// Whether a transaction is open (or failed and waiting for its ROLLBACK).
    public var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// Whether a transaction is open and usable: not failed (which makes PostgreSQL answer every
    /// statement with an error, and a COMMIT with a ROLLBACK).
    public var isInHealthyTransaction: Bool {
        guard let handle else { return false }
        return PQtransactionStatus(handle) == PQTRANS_INTRANS
    }

    /// `LISTEN`ed notifications that have arrived, read without waiting.
    public func notifications() throws(PostgresError) -> [(channel: String, payload: String)] {
        guard let handle else { throw PostgresError(sqlState: nil, message: "the connection is closed", connectionLost: true) }
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(sqlState: nil, message: Self.message(handle), connectionLost: true)
        }
        var found: [(String, String)] = []
        while let notice = PQnotifies(handle) {
            found.append((String(cString: notice.pointee.relname), String(cString: notice.pointee.extra)))
            PQfreemem(notice)
        }
        return found
    }

    /// The socket libpq reads from, to wait on for notifications.
    public var socket: Int32 { handle.map { PQsocket($0) } ?? -1 }

    private func error(_ result: OpaquePointer?, sql: String) -> PostgresError {
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        let lost = PQstatus(handle) != CONNECTION_OK
        return PostgresError(sqlState: state, message: Self.message(handle), sql: sql, connectionLost: lost)
    }

    private static func message(_ handle: OpaquePointer?) -> String {
        guard let handle, let text = PQerrorMessage(handle) else { return "no connection" }
        return String(cString: text).trimmingCharacters(in: " \n")
    }

    /// A value as PostgreSQL's text format has it; nil is NULL.
    private static func text(_ value: DatabaseValue) -> String? {
        switch value {
        case .null: nil
        case .integer(let number): String(number)
        case .real(let number): String(number)
        case .text(let text): text
        case .blob(let bytes): "\\x" + bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        }
    }

    private static func withCStrings<R>(_ values: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        if values.isEmpty { return body(nil) }
        var pointers: [UnsafeMutablePointer<CChar>?] = values.map { $0.map { strdup($0) } ?? nil }
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(1, buffer.count)) { body($0) }
        }
    }
}

private extension String {
    func trimmingCharacters(in set: String) -> String {
        var scalars = Substring(self)
        while let first = scalars.first, set.contains(first) { scalars.removeFirst() }
        while let last = scalars.last, set.contains(last) { scalars.removeLast() }
        return String(scalars)
    }

    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
