/// What the repositories' SQL needs of a connection, which both stores' connections have: SQL
/// with `?` placeholders, in the dialect SQLite and PostgreSQL share (`ON CONFLICT`, `RETURNING`,
/// `coalesce`), read back as `Row`s.
public protocol SQLConnection: AnyObject {
    func execute(_ sql: String, _ arguments: [DatabaseValue]) throws
    func fetchAll(_ sql: String, _ arguments: [DatabaseValue]) throws -> [Row]
    func fetchOne(_ sql: String, _ arguments: [DatabaseValue]) throws -> Row?
    /// Rows inserted, updated or deleted by the last statement.
    var changes: Int { get }
}

extension SQLConnection {
    public func execute(_ sql: String) throws { try execute(sql, []) }

    public func fetchAll(_ sql: String) throws -> [Row] { try fetchAll(sql, []) }

    public func fetchOne(_ sql: String, _ arguments: [DatabaseValue]) throws -> Row? {
        try fetchAll(sql, arguments).first
    }

    public func fetchOne(_ sql: String) throws -> Row? { try fetchOne(sql, []) }

    /// The first column of the first row: nil when there is no row or the value is NULL; throws
    /// `RowDecodingError` when it is of another type (a sum PostgreSQL returns as NUMERIC).
    public func fetchValue<T: DatabaseValueConvertible>(_ sql: String, _ arguments: [DatabaseValue] = [],
                                                        as type: T.Type = T.self) throws -> T? {
        guard let row = try fetchOne(sql, arguments) else { return nil }
        return try row.decodeIfPresent(0)
    }
}

