import BouncerStore

/// New rows that a commit group inserts together: one statement for all the rows of the group's
/// consecutive combinable writes instead of one statement (one round trip) each, and one for
/// their child rows. A row whose key is taken is left to its write's own path, which finds out
/// why (a retry, or a conflict).
public struct CombinedInsert: Sendable {
    /// The table, its columns in the order of each row's values, and the key (the first column).
    public var table: String
    public var columns: [String]
    /// The integer column the insert gives back for each row (its sequence).
    public var returning: String
    /// The table of child rows (a new message's flags), and its columns.
    public var childTable: String
    public var childColumns: [String]

    public init(table: String, columns: [String], returning: String, childTable: String, childColumns: [String]) {
        self.table = table
        self.columns = columns
        self.returning = returning
        self.childTable = childTable
        self.childColumns = childColumns
    }

    /// One write's row: its key, its values, and its child rows.
    public struct Row: Sendable {
        public var key: String
        public var values: [DatabaseValue]
        public var children: [[DatabaseValue]]

        public init(key: String, values: [DatabaseValue], children: [[DatabaseValue]]) {
            self.key = key
            self.values = values
            self.children = children
        }
    }

    /// Rows in one statement at most: 256 rows of 14 values stay far below PostgreSQL's 65,535
    /// parameters.
    static let chunk = 256

    /// Inserts `rows`; returns the returned column of each row inserted, by key (a row whose key
    /// was taken is absent; of a key given twice, the first row is the one inserted). Child rows
    /// follow, for the rows inserted only.
    func insert(_ rows: [Row], _ connection: PostgresConnection) throws(PostgresError) -> [String: Int64] {
        var inserted: [String: Int64] = [:]
        for start in stride(from: 0, to: rows.count, by: Self.chunk) {
            let part = rows[start..<min(rows.count, start + Self.chunk)]
            let sql = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES \(Self.placeholders(rows: part.count, columns: columns.count))"
                + " ON CONFLICT (\(columns[0])) DO NOTHING RETURNING \(columns[0]), \(returning)"
            for row in try connection.fetchAll(sql, part.flatMap(\.values)) {
                if let key = row.get(columns[0], as: String.self), let value = row.get(returning, as: Int64.self) { inserted[key] = value }
            }
        }
        // A key given twice was inserted for its first row: the children are that row's alone.
        var claimed = Set<String>()
        let children = rows.filter { inserted[$0.key] != nil && claimed.insert($0.key).inserted }.flatMap(\.children)
        for start in stride(from: 0, to: children.count, by: Self.chunk) {
            let part = children[start..<min(children.count, start + Self.chunk)]
            try connection.execute("INSERT INTO \(childTable) (\(childColumns.joined(separator: ", "))) VALUES "
                                   + Self.placeholders(rows: part.count, columns: childColumns.count), part.flatMap { $0 })
        }
        return inserted
    }

    private static func placeholders(rows: Int, columns: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return Array(repeating: row, count: rows).joined(separator: ", ")
    }
}
