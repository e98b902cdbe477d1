import BouncerApplication
import BouncerIdentity
import HTTPServer

/// `limit` and `cursor` of list endpoints: limit 1-200 (default 50); the cursor is opaque to
/// clients (base64url of the last key seen).
enum Pagination {
    static let defaultLimit = 50
    static let maxLimit = 200

    static func limit(_ request: Request) throws(HTTPError) -> Int {
        guard let text = request.query("limit") else { return defaultLimit }
        guard let limit = Int(text), (1...maxLimit).contains(limit) else {
            throw .badRequest("invalid_field", "`limit` must be a whole number from 1 to \(maxLimit).").keyed("field.whole_range", "limit", 1, maxLimit)
        }
        return limit
    }

    static func after(_ request: Request) throws(HTTPError) -> String? {
        guard let cursor = request.query("cursor"), !cursor.isEmpty else { return nil }
        guard cursor.utf8.count <= 512, let bytes = Base64URL.decode(Array(cursor.utf8)),
              let key = String(validating: bytes, as: UTF8.self) else {
            throw .badRequest("invalid_cursor", "`cursor` is not one this service gave out.")
        }
        return key
    }

    static func cursor(after key: String) -> String { Base64URL.encode(Array(key.utf8)) }
}

/// One page of a list: `limit` items, read as `limit + 1` so that the extra one, when the store
/// has it, says that a next page exists.
struct Page<Item> {
    var items: [Item]
    var hasMore: Bool

    /// `read` is given how many items to read at most.
    init(limit: Int, _ read: (Int) async throws -> [Item]) async rethrows {
        var items = try await read(limit + 1)
        hasMore = items.count > limit
        if hasMore { items.removeLast(items.count - limit) }
        self.items = items
    }

    /// The cursor of the next page, after the last item's `key`; nil on the last page.
    func nextCursor(_ key: (Item) -> String) -> String? {
        hasMore ? items.last.map { Pagination.cursor(after: key($0)) } : nil
    }
}

/// A list response: `{"<name>": [...], "next_cursor": "..." | null}`, as every list endpoint of
/// the contract answers (the cursor is written as null, never left out).
struct ListResponse<Item: Encodable>: Encodable {
    var name: String
    var items: [Item]
    var nextCursor: String?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(items, forKey: Key(name))
        try container.encode(nextCursor, forKey: Key("next_cursor"))
    }
}
