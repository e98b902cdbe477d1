/// A JSON object's members in the order they were written, looked up by name. A client's
/// `custom` object comes back as it was sent, not re-sorted; two objects with the same members
/// are equal whatever their order, as RFC 8259 reads them.
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// The member names, in order.
    public private(set) var keys: [String] = []
    private var valuesByKey: [String: JSONValue] = [:]

    public init() {}

    /// Members in key order: for objects made from a dictionary, which has no order of its own.
    public init(_ members: [String: JSONValue]) {
        keys = members.keys.sorted()
        valuesByKey = members
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { precondition(insert(key, value), "duplicate member \(key)") }
    }

    public subscript(key: String) -> JSONValue? { valuesByKey[key] }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// The members in order.
    public var members: [(key: String, value: JSONValue)] { keys.map { ($0, valuesByKey[$0]!) } }

    /// The values in member order.
    public var values: [JSONValue] { keys.map { valuesByKey[$0]! } }

    /// Adds a member at the end; false (and nothing added) when the name is taken.
    @discardableResult
    public mutating func insert(_ key: String, _ value: JSONValue) -> Bool {
        guard valuesByKey[key] == nil else { return false }
        valuesByKey[key] = value
        keys.append(key)
        return true
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.valuesByKey == rhs.valuesByKey }
}
