extension JSONText {
    /// An `Encodable` value as compact JSON text, as Foundation's `JSONEncoder` with `.sortedKeys`
    /// and `.withoutEscapingSlashes` wrote it: object members in key order, a nil optional member
    /// left out (`encodeNil`, as a `@Nullable` member does, writes `null`), strings escaped as
    /// `appendString` escapes them, numbers as `appendNumber` writes them. NaN and infinity, which
    /// JSON cannot hold, and a value that encodes nothing are refused with `EncodingError`.
    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        let root = EncodedNode()
        try value.encode(to: NodeEncoder(node: root, codingPath: []))
        guard !root.isEmpty else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(type(of: value)) did not encode any values."))
        }
        var output: [UInt8] = []
        root.write(to: &output)
        return output
    }

    /// `encode(value)` as a string, for JSON that is stored as text.
    public static func encodedString(_ value: some Encodable) throws -> String {
        String(decoding: try encode(value), as: UTF8.self)
    }
}

/// One value as an `Encodable` fills it in: a scalar, an array or an object (a class, so that a
/// container handed out can fill in its part after it is returned). Written out at the end.
final class EncodedNode {
    enum Scalar {
        case null
        case bool(Bool)
        case number(String)
        case string(String)
    }

    var scalar: Scalar?
    var elements: [EncodedNode]?
    var members: [String: EncodedNode]?

    var isEmpty: Bool { scalar == nil && elements == nil && members == nil }

    func write(to output: inout [UInt8]) {
        if let members {
            JSONText.appendObject(members, to: &output) { $0.write(to: &$1) }
        } else if let elements {
            JSONText.appendArray(elements, to: &output) { $0.write(to: &$1) }
        } else {
            switch scalar {
            case .null?: output.append(contentsOf: "null".utf8)
            case .bool(let value)?: JSONText.appendBool(value, to: &output)
            case .number(let text)?: output.append(contentsOf: text.utf8)
            case .string(let value)?: JSONText.appendString(value, to: &output)
            // A value that encoded nothing, inside another: JSONEncoder writes an empty object.
            case nil: output.append(contentsOf: "{}".utf8)
            }
        }
    }
}

extension EncodedNode.Scalar {
    static func float<Number: FloatingPoint & CustomStringConvertible>(_ value: Number, _ codingPath: () -> [any CodingKey]) throws -> Self {
        guard let text = JSONText.number(value) else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath(), debugDescription: "Unable to encode \(Number.self).\(value) directly in JSON."))
        }
        return .number(text)
    }

    static func integer(_ value: some FixedWidthInteger) -> Self { .number(String(value)) }
}

/// The encoder of one node, and its single-value container.
struct NodeEncoder: Encoder, SingleValueEncodingContainer, PrimitiveWriting {
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.members == nil { node.members = [:] }
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.elements == nil { node.elements = [] }
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    var nextPath: [any CodingKey] { codingPath }
    func next() -> NodeEncoder { self }
}

/// The primitive writes that an unkeyed and a single-value container share: each fills in the
/// container's next (or only) node.
protocol PrimitiveWriting {
    /// The coding path of the node `next()` hands out.
    var nextPath: [any CodingKey] { get }
    func next() -> NodeEncoder
}

extension PrimitiveWriting {
    func encodeNil() throws { set(.null) }
    func encode(_ value: Bool) throws { set(.bool(value)) }
    func encode(_ value: String) throws { set(.string(value)) }
    func encode(_ value: Double) throws { set(try .float(value) { nextPath }) }
    func encode(_ value: Float) throws { set(try .float(value) { nextPath }) }
    func encode(_ value: Int) throws { set(.integer(value)) }
    func encode(_ value: Int8) throws { set(.integer(value)) }
    func encode(_ value: Int16) throws { set(.integer(value)) }
    func encode(_ value: Int32) throws { set(.integer(value)) }
    func encode(_ value: Int64) throws { set(.integer(value)) }
    func encode(_ value: UInt) throws { set(.integer(value)) }
    func encode(_ value: UInt8) throws { set(.integer(value)) }
    func encode(_ value: UInt16) throws { set(.integer(value)) }
    func encode(_ value: UInt32) throws { set(.integer(value)) }
    func encode(_ value: UInt64) throws { set(.integer(value)) }
    func encode<T: Encodable>(_ value: T) throws { try value.encode(to: next()) }

    private func set(_ scalar: EncodedNode.Scalar) { next().node.scalar = scalar }
}

struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    private func child(_ key: Key) -> NodeEncoder {
        let child = EncodedNode()
        node.members![key.stringValue] = child
        return NodeEncoder(node: child, codingPath: codingPath + [key])
    }

    private func set(_ key: Key, _ scalar: EncodedNode.Scalar) { child(key).node.scalar = scalar }

    func encodeNil(forKey key: Key) throws { set(key, .null) }
    func encode(_ value: Bool, forKey key: Key) throws { set(key, .bool(value)) }
    func encode(_ value: String, forKey key: Key) throws { set(key, .string(value)) }
    func encode(_ value: Double, forKey key: Key) throws { set(key, try .float(value) { codingPath + [key] }) }
    func encode(_ value: Float, forKey key: Key) throws { set(key, try .float(value) { codingPath + [key] }) }
    func encode(_ value: Int, forKey key: Key) throws { set(key, .integer(value)) }
    func encode(_ value: Int8, forKey key: Key) throws { set(key, .integer(value)) }
    func encode(_ value: Int16, forKey key: Key) throws { set(key, .integer(value)) }
    func encode(_ value: Int32, forKey key: Key) throws { set(key, .integer(value)) }
    func encode(_ value: Int64, forKey key: Key) throws { set(key, .integer(value)) }
    func encode(_ value: UInt, forKey key: Key) throws { set(key, .integer(value)) }
    func encode(_ value: UInt8, forKey key: Key) throws { set(key, .integer(value)) }
    func encode(_ value: UInt16, forKey key: Key) throws { set(key, .integer(value)) }
    func encode(_ value: UInt32, forKey key: Key) throws { set(key, .integer(value)) }
    func encode(_ value: UInt64, forKey key: Key) throws { set(key, .integer(value)) }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try value.encode(to: child(key)) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        child(key).container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { child(key).unkeyedContainer() }

    func superEncoder() -> any Encoder {
        let child = EncodedNode()
        node.members![SuperKey().stringValue] = child
        return NodeEncoder(node: child, codingPath: codingPath + [SuperKey()])
    }

    func superEncoder(forKey key: Key) -> any Encoder { child(key) }
}

/// An array's elements, appended in turn.
struct UnkeyedNodeContainer: UnkeyedEncodingContainer, PrimitiveWriting {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    var count: Int { node.elements!.count }

    var nextPath: [any CodingKey] { codingPath + [IndexKey(intValue: count)] }

    func next() -> NodeEncoder {
        let element = NodeEncoder(node: EncodedNode(), codingPath: nextPath)
        node.elements!.append(element.node)
        return element
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        next().container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }

    func superEncoder() -> any Encoder { next() }
}
