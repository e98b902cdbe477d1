import BouncerApplication
import BouncerDomain
import Foundation
import HTTPServer

/// Query values that many routes read, read one way: bounded, and refused with a 400 that names
/// the parameter rather than silently ignored.
enum QueryValues {
    /// An optional filter value (an id, a reason, a search): nil when absent or empty, 400 past
    /// `maxLength` characters (Unicode scalars, as the OpenAPI schemas count them).
    static func shortText(_ request: Request, _ name: String, maxLength: Int = 128) throws(HTTPError) -> String? {
        guard let value = request.query(name), !value.isEmpty else { return nil }
        guard value.unicodeScalars.count <= maxLength else {
            throw .badRequest("invalid_field", "`\(name)` is longer than \(maxLength) characters.").keyed("field.too_long", name, maxLength)
        }
        return value
    }

    /// An optional `true` or `false`: nil when absent, 400 for anything else.
    static func bool(_ request: Request, _ name: String) throws(HTTPError) -> Bool? {
        guard let text = request.query(name) else { return nil }
        guard let value = Bool(text) else { throw .badRequest("invalid_field", "`\(name)` must be true or false.").keyed("field.boolean", name) }
        return value
    }

    /// An RFC 3339 time from a query, in the stored form so it compares as text.
    static func timestamp(_ text: String, _ name: String) throws(HTTPError) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        guard let date = formatter.date(from: text) ?? plain.date(from: text) else {
            throw .badRequest("invalid_field", "`\(name)` must be an RFC 3339 time like 2026-11-29T12:00:00Z.").keyed("field.timestamp", name)
        }
        return Timestamp.format(date)
    }
}
