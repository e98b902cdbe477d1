import BouncerDomain
import BouncerStore

/// New rows that a commit group inserts together: one statement for all the rows of the group's
/// combinable writes, their child rows (a new message's flags) and their events, instead of a
/// statement (a round trip) for each. A row whose key is taken is left to its write's own path,
/// which finds out why (a retry, or a conflict); its children and events are not inserted.
///
/// The statement's text is the same for every group: each column goes as one array parameter,
/// turned back into rows by `unnest`, so PostgreSQL parses and plans a short statement however
/// many rows a group has (a VALUES list of a group's rows cost it more to parse than to insert).
public struct CombinedInsert: Sendable {
    /// A column, and its SQL type (the type of its array parameter).
    public struct Column: Sendable {
        public var name: String
        public var type: String

        public init(_ name: String, _ type: String = "text") {
            self.name = name
            self.type = type
        }
    }

    /// The table, its columns in the order of each row's values, and the key (the first column).
    public let table: String
    public let columns: [Column]
    /// The integer column the insert gives back for each row (its sequence).
    public let returning: String
    /// The table of child rows, its columns, and the one of them that holds the parent's key.
    public let childTable: String
    public let childColumns: [Column]
    public let childKey: String
    /// Whether rows may carry events for the event log (`events` and `event_sequence`).
    public let appendsEvents: Bool
    /// The statement's four forms: with children or without, with events or without.
    private let forms: [String]

    public init(table: String, columns: [Column], returning: String, childTable: String, childColumns: [Column], childKey: String,
                appendsEvents: Bool = false) {
        precondition(childColumns.contains { $0.name == childKey }, "the child rows name their parent's key")
        self.table = table
        self.columns = columns
        self.returning = returning
        self.childTable = childTable
        self.childColumns = childColumns
        self.childKey = childKey
        self.appendsEvents = appendsEvents
        var forms: [String] = []
        for events in [false, true] {
            for children in [false, true] {
                forms.append(Self.statement(table: table, columns: columns, returning: returning, childTable: childTable,
                                            childColumns: childColumns, childKey: childKey, children: children, events: events))
            }
        }
        self.forms = forms
    }

    /// One write's row: its key, its values, its child rows, and the events it appends to the
    /// event log (ids from `event_sequence`, as `EventLog.append` gives them).
    public struct Row: Sendable {
        public var key: String
        public var values: [DatabaseValue]
        public var children: [[DatabaseValue]]
        public var events: [NewEvent]

        public init(key: String, values: [DatabaseValue], children: [[DatabaseValue]], events: [NewEvent] = []) {
            self.key = key
            self.values = values
            self.children = children
            self.events = events
        }
    }

    /// The statement that inserts `rows` (of distinct keys: `firstOfEachKey`), answering the key
    /// and the returned column of every row it inserted.
    func statement(_ rows: [Row]) -> (sql: String, arguments: [DatabaseValue]) {
        let children = rows.flatMap(\.children)
        let hasEvents = rows.contains { !$0.events.isEmpty }
        precondition(!hasEvents || appendsEvents, "rows of \(table) carry no events")
        var arguments: [DatabaseValue] = columns.indices.map { column in .text(PostgresArrayLiteral.of(rows.lazy.map { $0.values[column] })) }
        if !children.isEmpty {
            arguments += childColumns.indices.map { column in .text(PostgresArrayLiteral.of(children.lazy.map { $0[column] })) }
        }
        if hasEvents {
            let events = rows.flatMap { row in row.events.map { (key: row.key, event: $0) } }
            arguments += [
                .text(PostgresArrayLiteral.of(events.lazy.map { .text($0.key) })),
                .text(PostgresArrayLiteral.of(events.lazy.map { .text($0.event.type) })),
                .text(PostgresArrayLiteral.of(events.lazy.map { .text($0.event.createdAt) })),
                .text(PostgresArrayLiteral.of(events.lazy.map { .text($0.event.data) })),
            ]
        }
        return (forms[(hasEvents ? 2 : 0) + (children.isEmpty ? 0 : 1)], arguments)
    }

    /// The keys inserted, with their returned column, from the statement's result.
    func inserted(_ result: PostgresResult) throws(RowDecodingError) -> [String: Int64] {
        var inserted: [String: Int64] = [:]
        for row in result.rows {
            inserted[try row.decode("key", as: String.self)] = try row.decode("returned", as: Int64.self)
        }
        return inserted
    }

    /// Inserts `rows`; returns the returned column of each row inserted, by key (a row whose key
    /// was taken is absent; of a key given twice, the first row is the one inserted, with its
    /// children and events alone).
    func insert(_ rows: [Row], _ connection: PostgresConnection) throws(PostgresError) -> [String: Int64] {
        let statement = statement(Self.firstOfEachKey(rows))
        let result = try connection.query(statement.sql, statement.arguments)
        do {
            return try inserted(result)
        } catch {
            // An answer of another shape than the statement's: the code and the schema disagree.
            throw PostgresError(sqlState: "XX000", message: "the insert's answer cannot be read: \(error)", sql: statement.sql)
        }
    }

    static func firstOfEachKey(_ rows: [Row]) -> [Row] {
        var seen = Set<String>()
        return rows.filter { seen.insert($0.key).inserted }
    }

    /// The rows (`m`), then the children and events of those the insert took (`IN (SELECT key
    /// FROM m)`: the data-modifying parts of one statement see each other only through
    /// `RETURNING`). Event ids are taken from `event_sequence` only when there are events, so a
    /// group without any never waits for that row's lock, which orders by their commits the
    /// transactions that append events.
    private static func statement(table: String, columns: [Column], returning: String, childTable: String, childColumns: [Column],
                                  childKey: String, children: Bool, events: Bool) -> String {
        var parameter = 0
        func unnest(_ columns: [Column], numbered: Bool = false) -> String {
            "unnest(" + columns.map { column in
                parameter += 1
                return "$\(parameter)::\(column.type)[]"
            }.joined(separator: ", ") + ")" + (numbered ? " WITH ORDINALITY" : "")
                + " AS v (" + (columns.map(\.name) + (numbered ? ["ord"] : [])).joined(separator: ", ") + ")"
        }
        let key = columns[0].name
        let names = columns.map(\.name).joined(separator: ", ")
        var sql = "WITH m AS (INSERT INTO \(table) (\(names)) SELECT \(names) FROM \(unnest(columns))"
            + " ON CONFLICT (\(key)) DO NOTHING RETURNING \(key), \(returning))"
        if children {
            let childNames = childColumns.map(\.name).joined(separator: ", ")
            sql += ", c AS (INSERT INTO \(childTable) (\(childNames)) SELECT \(childNames) FROM \(unnest(childColumns))"
                + " WHERE \(childKey) IN (SELECT \(key) FROM m))"
        }
        if events {
            let eventColumns = [Column("parent"), Column("type"), Column("created_at"), Column("data")]
            sql += ", e AS (SELECT ord, type, created_at, data FROM \(unnest(eventColumns, numbered: true))"
                + " WHERE parent IN (SELECT \(key) FROM m))"
                + ", s AS (UPDATE event_sequence SET last = last + (SELECT count(*) FROM e) WHERE id = 1 AND EXISTS (SELECT 1 FROM e)"
                + " RETURNING last)"
                + ", i AS (INSERT INTO events (id, type, created_at, data)"
                + " SELECT s.last - (SELECT count(*) FROM e) + row_number() OVER (ORDER BY e.ord), e.type, e.created_at, e.data FROM s, e)"
        }
        return sql + " SELECT \(key) AS key, \(returning) AS returned FROM m"
    }
}
