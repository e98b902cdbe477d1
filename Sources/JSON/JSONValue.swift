/// A JSON value, as `StrictJSONParser` reads it: numbers as their text, objects' members in order.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number's nearest double.
    public var numberValue: Double? {
        if case .number(let value) = self { return value.double }
        return nil
    }

    /// The value as compact JSON text: members in their order, numbers as they were written.
    public var serialized: String {
        var output: [UInt8] = []
        write(to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the value as compact JSON text: members in their order, numbers as they were written.
    public func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): JSONText.appendBool(value, to: &output)
        case .number(let value): output.append(contentsOf: value.text.utf8)
        case .string(let value): JSONText.appendString(value, to: &output)
        case .array(let elements): JSONText.appendArray(elements, to: &output) { $0.write(to: &$1) }
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONText.appendString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }
}
