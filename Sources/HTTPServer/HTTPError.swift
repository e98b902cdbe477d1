import JSON

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
    /// The values in `detail`, in order, so a renderer can put them into a translated detail.
    public var detailArguments: [String]
    /// The detail's own text key, for a code whose details differ from one place to another: a
    /// renderer looks up `error.detail.<detailKey>` instead of `error.<code>.detail`.
    public var detailKey: String?
    /// Text before the detail that no translation replaces (a position such as `rules[2]: `);
    /// `detail` already begins with it.
    public var detailPrefix: String = ""

    public init(_ status: HTTPStatus, code: String, detail: String, headers: HTTPHeaders = [:],
                extensions: [(name: String, json: String)] = [], detailArguments: [String] = []) {
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers
        self.extensions = extensions
        self.detailArguments = detailArguments
    }

    public var description: String { "\(status.code) \(code): \(detail)" }

    /// The same error with its detail's own text key and the values in the detail, in order.
    public func keyed(_ key: String, _ arguments: any CustomStringConvertible...) -> HTTPError {
        var error = self
        error.detailKey = key
        error.detailArguments = arguments.map(\.description)
        return error
    }

    /// The same error with its detail's own text key and the values in the detail, in order.
    public func keyed(_ key: String, arguments: [String]) -> HTTPError {
        var error = self
        error.detailKey = key
        error.detailArguments = arguments
        return error
    }

    /// The same problem at a position: its detail after `prefix` (in every language), without
    /// the headers and extensions of the error it was.
    public func prefixed(_ prefix: String) -> HTTPError {
        var error = HTTPError(status, code: code, detail: prefix + detail, detailArguments: detailArguments)
        error.detailKey = detailKey
        error.detailPrefix = prefix + detailPrefix
        return error
    }

    public static func badRequest(_ code: String, _ detail: String) -> HTTPError {
        HTTPError(.badRequest, code: code, detail: detail)
    }

    public static func notFound(_ code: String = "not_found", _ detail: String = "There is nothing at this path.") -> HTTPError {
        HTTPError(.notFound, code: code, detail: detail)
    }

    init(_ parseError: HTTPParseError) {
        self.init(parseError.status, code: parseError.code, detail: parseError.detail, detailArguments: parseError.detailArguments)
        detailKey = parseError.detailKey
    }
}

/// Turns an `HTTPError` into a response. The service supplies its own to localize titles; the
/// default answers in English with the status's reason phrase.
public protocol ProblemRenderer: Sendable {
    func render(_ error: HTTPError, for head: RequestHead?, requestID: String) -> Response
    /// The answer for an error a handler threw that is not an `HTTPError`, when the application
    /// knows one (a store that is out of space is 503, not 500); nil: a 500.
    func problem(for error: any Error) -> HTTPError?
}

extension ProblemRenderer {
    public func problem(for error: any Error) -> HTTPError? { nil }
}

public struct DefaultProblemRenderer: ProblemRenderer {
    public init() {}

    public func render(_ error: HTTPError, for head: RequestHead?, requestID: String) -> Response {
        Self.problemResponse(error, title: error.status.reasonPhrase, detail: error.detail, requestID: requestID)
    }

    /// The problem JSON response for `error` with the given (already localized) texts.
    public static func problemResponse(_ error: HTTPError, title: String, detail: String, requestID: String) -> Response {
        var json: [UInt8] = []
        json.reserveCapacity(256)
        json.append(contentsOf: #"{"type":"about:blank","title":"#.utf8)
        JSONText.appendString(title, to: &json)
        json.append(contentsOf: #","status":\#(error.status.code),"detail":"#.utf8)
        JSONText.appendString(detail, to: &json)
        json.append(contentsOf: #","code":"#.utf8)
        JSONText.appendString(error.code, to: &json)
        json.append(contentsOf: #","request_id":"#.utf8)
        JSONText.appendString(requestID, to: &json)
        for (name, value) in error.extensions {
            json.append(UInt8(ascii: ","))
            JSONText.appendString(name, to: &json)
            json.append(UInt8(ascii: ":"))
            json.append(contentsOf: value.utf8)
        }
        json.append(UInt8(ascii: "}"))
        var headers = error.headers
        headers.set("Content-Type", "application/problem+json")
        return Response(status: error.status, headers: headers, body: json)
    }
}
