import Foundation
import JSON

extension Request {
    /// Decodes the body as JSON. Every way it can fail is a client error with its own code:
    /// 415 `unsupported_media_type` for a declared non-JSON type, 400 `json_too_deep` past the
    /// nesting limit (the parser stops there), 400 `invalid_json` for
    /// text that is not RFC 8259 JSON (the strict parser's rule: a duplicate key too), and 400
    /// `invalid_field` naming the field whose type or presence is wrong. A body sent without
    /// Content-Type is read as JSON. The parser bounds the depth itself: the body is read once.
    public func decodeJSON<T: Decodable>(_ type: T.Type = T.self) throws(HTTPError) -> T {
        try checkJSONBody(checkingDepth: false)
        let value: JSONValue
        do {
            value = try StrictJSONParser.parse(body, maxDepth: maxJSONDepth)
        } catch {
            throw error.isTooDeep ? jsonTooDeep : Self.invalidJSON
        }
        do {
            return try value.decode(T.self)
        } catch let error as DecodingError {
            throw Self.describe(error)
        } catch {
            throw Self.invalidJSON
        }
    }

    private static let invalidJSON = HTTPError.badRequest("invalid_json", "The request body is not valid JSON.")

    /// The checks every JSON body passes before it is parsed: a JSON media type (or none), not
    /// empty, not nested past the limit. For handlers that parse the body themselves.
    /// `checkingDepth: false` leaves the depth to a parser that bounds it itself and answers
    /// `jsonTooDeep` (a second pass over every body costs the hot send path).
    public func checkJSONBody(checkingDepth: Bool = true) throws(HTTPError) {
        if let contentType = headers["content-type"], !Self.isJSON(contentType) {
            throw HTTPError(.unsupportedMediaType, code: "unsupported_media_type",
                            detail: "The body must be JSON (Content-Type: application/json).")
        }
        guard !body.isEmpty else { throw .badRequest("invalid_json", "The request body is empty; JSON was expected.").keyed("json.empty") }
        if checkingDepth, JSONDepth.exceeds(body, limit: maxJSONDepth) { throw jsonTooDeep }
    }

    /// 400 `json_too_deep`: the body nests deeper than `maxJSONDepth`.
    public var jsonTooDeep: HTTPError {
        HTTPError(.badRequest, code: "json_too_deep", detail: "The JSON body nests deeper than \(maxJSONDepth) levels.",
                  detailArguments: [String(maxJSONDepth)])
    }

    /// Whether a Content-Type names JSON (`application/json`, or any `application/*+json`).
    public static func isJSON(_ contentType: String) -> Bool {
        // What nearly every client sends, answered without splitting or lowercasing.
        if contentType == "application/json" { return true }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces().lowercased() } ?? ""
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }

    private static func describe(_ error: DecodingError) -> HTTPError {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            let keys = codingPath + (last.map { [$0] } ?? [])
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return text.replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return .badRequest("invalid_field", "The field `\(path(context.codingPath, key))` is required.").keyed("field.required", path(context.codingPath, key))
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return .badRequest("invalid_field", "The field `\(path(context.codingPath))` has the wrong type.").keyed("field.wrong_type", path(context.codingPath))
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            return .badRequest("invalid_field", "The field `\(path(context.codingPath))` is not valid: \(context.debugDescription)").keyed("field.invalid", path(context.codingPath), context.debugDescription)
        default:
            return invalidJSON
        }
    }
}
