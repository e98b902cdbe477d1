/// An error a handler throws to answer with problem JSON (RFC 9457) instead of a response.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public var status: HTTPStatus
    /// A stable snake_case identifier clients can switch on.
    public var code: String
    public var detail: String
    /// Extra headers for the response (`Allow`, `Retry-After`, `WWW-Authenticate`).
    public var headers: HTTPHeaders
    /// Extra members of the problem object, each already encoded as JSON.
    public var extensions: [(name: String, json: String)]

    public init(_ status: HTTPStatus, code: String, detail: String, headers: HTTPHeaders = [:],
                extensions: [(name: String, json: String)] = []) {
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers
        self.extensions = extensions
    }

    public var description: String { "\(status.code) \(code): \(detail)" }

    public static func badRequest(_ code: String, _ detail: String) -> HTTPError {
        HTTPError(.badRequest, code: code, detail: detail)
    }

    public static func notFound(_ code: String = "not_found", _ detail: String = "There is nothing at this path.") -> HTTPError {
        HTTPError(.notFound, code: code, detail: detail)
    }

    init(_ parseError: HTTPParseError) {
        self.init(parseError.status, code: parseError.code, detail: parseError.detail)
    }
}

/// Turns an `HTTPError` into a response. The service supplies its own to localize titles; the
/// default answers in English with the status's reason phrase.
public protocol ProblemRenderer: Sendable {
    func render(_ error: HTTPError, for head: RequestHead?, requestID: String) -> Response
}

public struct DefaultProblemRenderer: ProblemRenderer {
    public init() {}

    public func render(_ error: HTTPError, for head: RequestHead?, requestID: String) -> Response {
        Self.problemResponse(error, title: error.status.reasonPhrase, detail: error.detail, requestID: requestID)
    }

    /// The problem JSON response for `error` with the given (already localized) texts.
    public static func problemResponse(_ error: HTTPError, title: String, detail: String, requestID: String) -> Response {
        var json = "{\"type\":\"about:blank\",\"title\":"
        JSONText.appendString(title, to: &json)
        json += ",\"status\":\(error.status.code),\"detail\":"
        JSONText.appendString(detail, to: &json)
        json += ",\"code\":"
        JSONText.appendString(error.code, to: &json)
        json += ",\"request_id\":"
        JSONText.appendString(requestID, to: &json)
        for (name, value) in error.extensions {
            json += ","
            JSONText.appendString(name, to: &json)
            json += ":" + value
        }
        json += "}"
        var headers = error.headers
        headers.set("Content-Type", "application/problem+json")
        return Response(status: error.status, headers: headers, body: Array(json.utf8))
    }
}

/// Writing JSON text by hand where the shape is fixed and speed matters (problems, log lines).
public enum JSONText {
    public static func appendString(_ string: String, to output: inout String) {
        output += "\""
        var plainStart = string.unicodeScalars.startIndex
        var index = plainStart
        let scalars = string.unicodeScalars
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let escape: String? = switch scalar {
            case "\"": "\\\""
            case "\\": "\\\\"
            case "\n": "\\n"
            case "\r": "\\r"
            case "\t": "\\t"
            case "\u{2028}": "\\u2028"
            case "\u{2029}": "\\u2029"
            default: scalar.value < 0x20 ? "\\u" + hex4(scalar.value) : nil
            }
            if let escape {
                output.unicodeScalars.append(contentsOf: scalars[plainStart..<index])
                output += escape
                plainStart = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        output.unicodeScalars.append(contentsOf: scalars[plainStart..<scalars.endIndex])
        output += "\""
    }

    public static func quoted(_ string: String) -> String {
        var output = ""
        appendString(string, to: &output)
        return output
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
