/// A JSON value, as `StrictJSONParser` reads it. Numbers are doubles, as in JavaScript.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The value as compact JSON text (object members in key order).
    public var serialized: String {
        var output: [UInt8] = []
        write(to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the value as compact JSON text (object members in key order).
    public func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): JSONText.appendBool(value, to: &output)
        case .number(let value): JSONText.appendNumber(value, to: &output)
        case .string(let value): JSONText.appendString(value, to: &output)
        case .array(let elements): JSONText.appendArray(elements, to: &output) { $0.write(to: &$1) }
        case .object(let members): JSONText.appendObject(members, to: &output) { $0.write(to: &$1) }
        }
    }
}
