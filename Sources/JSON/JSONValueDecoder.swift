extension JSONValue {
    /// Decodes a `Decodable` value from this one as Foundation's `JSONDecoder` decodes it from
    /// text, and fails as it fails: the same `DecodingError` cases with the same coding paths
    /// (an array element's key is `Index N`, with `N` as its int value). A whole number, even
    /// written `5.0` or `5e0`, decodes into an integer type; a number with a fraction or out of the
    /// type's range is refused as `JSONDecoder` refuses it, as data that is not valid JSON
    /// (`dataCorrupted` with an empty coding path).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try ValueDecoder(value: self, codingPath: []).decode(T.self)
    }

    /// Reads `text` with the strict parser and decodes it: for JSON that Bouncer stored itself.
    public static func decode<T: Decodable>(_ type: T.Type = T.self, from text: String) throws -> T {
        try StrictJSONParser.parse(Array(text.utf8)).decode(T.self)
    }
}

/// Any JSON value, for what clients send that Bouncer keeps without reading (`custom`).
extension JSONValue: Decodable {
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? ValueDecoder {
            self = decoder.value
            return
        }
        // Another decoder: ask for each kind of value in turn.
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self), let number = JSONNumber(value) {
            self = .number(number)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(JSONObject(try container.decode([String: JSONValue].self)))
        }
    }

    /// What `JSONDecoder`'s messages call each kind of value.
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .number: "number"
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
    }
}

/// The key of an array element in a coding path.
struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// How a JSON value becomes each primitive type, failing as `JSONDecoder` fails. The coding path
/// is built only for an error.
enum Primitive {
    typealias Path = () -> [any CodingKey]

    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(value.kindDescription) instead."))
    }

    static func bool(_ value: JSONValue, _ path: Path) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, path()) }
        return bool
    }

    static func string(_ value: JSONValue, _ path: Path) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, value, path()) }
        return string
    }

    static func double(_ value: JSONValue, _ path: Path) throws -> Double {
        guard case .number(let number) = value else { throw mismatch(Double.self, value, path()) }
        return number.double
    }

    static func float(_ value: JSONValue, _ path: Path) throws -> Float {
        guard case .number(let number) = value else { throw mismatch(Float.self, value, path()) }
        guard abs(number.double) <= Double(Float.greatestFiniteMagnitude) else { throw unrepresentable(number, Float.self, path()) }
        return Float(number.double)
    }

    static func integer<T: FixedWidthInteger>(_ value: JSONValue, _ path: Path) throws -> T {
        guard case .number(let number) = value else { throw mismatch(T.self, value, path()) }
        guard let integer = number.exactly(T.self) else { throw unrepresentable(number, T.self, path()) }
        return integer
    }

    /// `JSONDecoder` reports a number that does not fit the type as text that is not valid JSON:
    /// without a coding path, which `Request.decodeJSON` answers `invalid_json`.
    private static func unrepresentable(_ number: JSONNumber, _ type: Any.Type, _ path: [any CodingKey]) -> DecodingError {
        let field = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return .dataCorrupted(.init(codingPath: [], debugDescription: "The number \(number.text) at `\(field)` does not fit in \(type)."))
    }
}

/// The decoder of one value, and its single-value container.
struct ValueDecoder: Decoder, SingleValueDecodingContainer, PrimitiveReading {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == JSONValue.self { return value as! T }
        return try T(from: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw Primitive.mismatch([String: Any].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedContainer(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw Primitive.mismatch([Any].self, value, codingPath) }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func read<T>(_ type: T.Type, _ unwrap: (JSONValue, Primitive.Path) throws -> T) throws -> T {
        try unwrap(value) { codingPath }
    }
}

/// The primitive reads that an unkeyed and a single-value container share: each takes the
/// container's next (or only) value.
protocol PrimitiveReading {
    func read<T>(_ type: T.Type, _ unwrap: (JSONValue, Primitive.Path) throws -> T) throws -> T
}

extension PrimitiveReading {
    func decode(_ type: Bool.Type) throws -> Bool { try read(type, Primitive.bool) }
    func decode(_ type: String.Type) throws -> String { try read(type, Primitive.string) }
    func decode(_ type: Double.Type) throws -> Double { try read(type, Primitive.double) }
    func decode(_ type: Float.Type) throws -> Float { try read(type, Primitive.float) }
    func decode(_ type: Int.Type) throws -> Int { try read(type, Primitive.integer) }
    func decode(_ type: Int8.Type) throws -> Int8 { try read(type, Primitive.integer) }
    func decode(_ type: Int16.Type) throws -> Int16 { try read(type, Primitive.integer) }
    func decode(_ type: Int32.Type) throws -> Int32 { try read(type, Primitive.integer) }
    func decode(_ type: Int64.Type) throws -> Int64 { try read(type, Primitive.integer) }
    func decode(_ type: UInt.Type) throws -> UInt { try read(type, Primitive.integer) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try read(type, Primitive.integer) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try read(type, Primitive.integer) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try read(type, Primitive.integer) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try read(type, Primitive.integer) }
}

struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: JSONObject
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath,
                                                       debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return value
    }

    private func decoder(_ key: Key) throws -> ValueDecoder { ValueDecoder(value: try member(key), codingPath: codingPath + [key]) }

    private func read<T>(_ key: Key, _ unwrap: (JSONValue, Primitive.Path) throws -> T) throws -> T {
        try unwrap(try member(key)) { codingPath + [key] }
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try member(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try read(key, Primitive.bool) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try read(key, Primitive.string) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try read(key, Primitive.double) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try read(key, Primitive.float) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try read(key, Primitive.integer) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try read(key, Primitive.integer) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try read(key, Primitive.integer) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try read(key, Primitive.integer) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try read(key, Primitive.integer) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try read(key, Primitive.integer) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try read(key, Primitive.integer) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try read(key, Primitive.integer) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try read(key, Primitive.integer) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try read(key, Primitive.integer) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(key).decode(T.self) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try decoder(key).unkeyedContainer() }

    func superDecoder() throws -> any Decoder {
        let key = SuperKey()
        return ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

/// The key `super`, as `superDecoder()` and `superEncoder()` use it.
struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

/// An array's elements, read in turn. A class: `decode` of a single-value container does not
/// mutate, and the primitive reads are shared with it.
final class UnkeyedContainer: UnkeyedDecodingContainer, PrimitiveReading {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var path: [any CodingKey] { codingPath + [IndexKey(intValue: currentIndex)] }

    /// Takes the next element (and moves past it only if `unwrap` succeeds).
    func read<T>(_ type: T.Type, _ unwrap: (JSONValue, Primitive.Path) throws -> T) throws -> T {
        guard !isAtEnd else { throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "Unkeyed container is at end.")) }
        let result = try unwrap(elements[currentIndex]) { path }
        currentIndex += 1
        return result
    }

    private func next() throws -> ValueDecoder {
        try read(ValueDecoder.self) { value, path in ValueDecoder(value: value, codingPath: path()) }
    }

    func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw DecodingError.valueNotFound(Any?.self, .init(codingPath: path, debugDescription: "Unkeyed container is at end.")) }
        guard case .null = elements[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try read(type) { value, path in try ValueDecoder(value: value, codingPath: path()).decode(T.self) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try read(KeyedDecodingContainer<NestedKey>.self) { value, path in
            try ValueDecoder(value: value, codingPath: path()).container(keyedBy: type)
        }
    }

    func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try read((any UnkeyedDecodingContainer).self) { value, path in try ValueDecoder(value: value, codingPath: path()).unkeyedContainer() }
    }

    func superDecoder() throws -> any Decoder { try next() }
}
