/// One result row, copied out of the statement so it outlives the next step.
///
/// Columns are read with `decode` (a value the column must hold) or `decodeIfPresent` (NULL
/// reads as nil). Both throw `RowDecodingError` for a column the row lacks or a value of another
/// type: a store and code that disagree fail loudly, as GRDB's rows do, and never read as a
/// default (a message whose state cannot be read is not `delivered`).
public struct Row: Sendable {
    public let columnNames: [String]
    public let values: [DatabaseValue]

    public init(columnNames: [String], values: [DatabaseValue]) {
        self.columnNames = columnNames
        self.values = values
    }

    public subscript(index: Int) -> DatabaseValue { values[index] }

    /// The named column's value; NULL when the row has no such column.
    public subscript(name: String) -> DatabaseValue {
        guard let index = columnNames.firstIndex(of: name) else { return .null }
        return values[index]
    }

    /// The named column as `T`; throws when the row lacks it, or it is NULL or of another type.
    public func decode<T: DatabaseValueConvertible>(_ name: String, as type: T.Type = T.self) throws(RowDecodingError) -> T {
        try Self.decode(try value(named: name), column: name)
    }

    /// The named column as `T`, nil when NULL; throws when the row lacks it or it holds another type.
    public func decodeIfPresent<T: DatabaseValueConvertible>(_ name: String, as type: T.Type = T.self) throws(RowDecodingError) -> T? {
        let value = try value(named: name)
        if case .null = value { return nil }
        let decoded: T = try Self.decode(value, column: name)
        return decoded
    }

    /// The column at `index` as `T`; throws when it is NULL or of another type.
    public func decode<T: DatabaseValueConvertible>(_ index: Int, as type: T.Type = T.self) throws(RowDecodingError) -> T {
        try Self.decode(try value(at: index), column: columnName(at: index))
    }

    /// The column at `index` as `T`, nil when NULL; throws when it holds another type.
    public func decodeIfPresent<T: DatabaseValueConvertible>(_ index: Int, as type: T.Type = T.self) throws(RowDecodingError) -> T? {
        let value = try value(at: index)
        if case .null = value { return nil }
        let decoded: T = try Self.decode(value, column: columnName(at: index))
        return decoded
    }

    private func value(named name: String) throws(RowDecodingError) -> DatabaseValue {
        guard let index = columnNames.firstIndex(of: name) else {
            throw RowDecodingError(column: name, expected: nil, found: nil)
        }
        return values[index]
    }

    private func value(at index: Int) throws(RowDecodingError) -> DatabaseValue {
        guard values.indices.contains(index) else { throw RowDecodingError(column: "#\(index)", expected: nil, found: nil) }
        return values[index]
    }

    private func columnName(at index: Int) -> String {
        columnNames.indices.contains(index) ? columnNames[index] : "#\(index)"
    }

    /// `value` as `T`, or the error that names the column, the type asked and the kind found.
    package static func decode<T: DatabaseValueConvertible>(_ value: DatabaseValue, column: String) throws(RowDecodingError) -> T {
        guard let decoded = T(databaseValue: value) else {
            throw RowDecodingError(column: column, expected: String(describing: T.self), found: value.kind)
        }
        return decoded
    }
}

/// A row's column that could not be read as the code asked: missing from the row, NULL where a
/// value must be, or another type (an unknown message state, a number stored as text). Its
/// description names the column and the types, never the value, which may be a user's text.
public struct RowDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var column: String
    /// The type asked for; nil when the row has no such column.
    public var expected: String?
    /// What the column held (`NULL`, `INTEGER`, `REAL`, `TEXT`, `BLOB`); nil when missing.
    public var found: String?

    public var description: String {
        guard let expected, let found else { return "the row has no column \(column)" }
        return "column \(column) holds \(found), which does not read as \(expected)"
    }
}

extension DatabaseValue {
    /// The value's storage class, as SQLite names it.
    var kind: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}
