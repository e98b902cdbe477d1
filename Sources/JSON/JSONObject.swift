/// A JSON object's members in the order they were written, looked up by name. A client's
/// `custom` object comes back as it was sent, not re-sorted; two objects with the same members
/// are equal whatever their order, as RFC 8259 reads them.
///
/// The members are kept in order in one array, and found by comparing names while they are few:
/// most objects a client sends (a message's body, a rule, a flag) have a handful of members, and a
/// dictionary beside them cost an allocation and a hash of every name. An object that grows past
/// `indexedFrom` members gets a dictionary of positions, so that a large one is not searched
/// member by member.
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public typealias Member = (key: String, value: JSONValue)

    /// The members, in order.
    public private(set) var members: [Member] = []
    /// Each name's position in `members`, once there are more than `indexedFrom`.
    private var positions: [String: Int]?

    /// Members past which names are found through a dictionary rather than compared in turn.
    static let indexedFrom = 12

    public init() {}

    /// Members in key order: for objects made from a dictionary, which has no order of its own.
    public init(_ members: [String: JSONValue]) {
        self.members.reserveCapacity(members.count)
        for key in members.keys.sorted() { insert(key, members[key]!) }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { precondition(insert(key, value), "duplicate member \(key)") }
    }

    public subscript(key: String) -> JSONValue? { position(of: key).map { members[$0].value } }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    /// The member names, in order.
    public var keys: [String] { members.map(\.key) }

    /// The values in member order.
    public var values: [JSONValue] { members.map(\.value) }

    /// Adds a member at the end; false (and nothing added) when the name is taken.
    @discardableResult
    public mutating func insert(_ key: String, _ value: JSONValue) -> Bool {
        guard position(of: key) == nil else { return false }
        members.append((key, value))
        if positions != nil {
            positions![key] = members.count - 1
        } else if members.count > Self.indexedFrom {
            positions = Dictionary(uniqueKeysWithValues: members.enumerated().map { ($0.element.key, $0.offset) })
        }
        return true
    }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return members.firstIndex { $0.key == key }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        // Names are unique within each object, so the same count and every member of one found
        // with an equal value in the other is the same set of members.
        return lhs.members.allSatisfy { member in rhs[member.key] == member.value }
    }
}
