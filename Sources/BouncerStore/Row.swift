/// One result row, copied out of the statement so it outlives the next step.
public struct Row: Sendable {
    public let columnNames: [String]
    public let values: [DatabaseValue]

    public init(columnNames: [String], values: [DatabaseValue]) {
        self.columnNames = columnNames
        self.values = values
    }

    public subscript(index: Int) -> DatabaseValue { values[index] }

    public subscript(name: String) -> DatabaseValue {
        guard let index = columnNames.firstIndex(of: name) else { return .null }
        return values[index]
    }

    /// The named column converted to `T`, or nil when it is NULL or of another type.
    public func get<T: DatabaseValueConvertible>(_ name: String, as type: T.Type = T.self) -> T? {
        T(databaseValue: self[name])
    }

    public func get<T: DatabaseValueConvertible>(_ index: Int, as type: T.Type = T.self) -> T? {
        T(databaseValue: values[index])
    }
}
