/// The head of a request as the parser saw it, with the framing decisions already made.
public struct RequestHead: Sendable, Equatable {
    public enum BodyFraming: Sendable, Equatable {
        case none
        case length(Int)
        case chunked
    }

    public var method: String
    /// The request target exactly as sent (`/v1/messages?limit=5`).
    public let target: String
    /// The path part of the target, without the query.
    public let path: Substring
    /// The query part of the target, without the `?`, if there is one.
    public let query: Substring?
    public var version: HTTPVersion
    /// Field names in lower case, in the order received.
    public var headers: HTTPHeaders
    public var framing: BodyFraming
    /// Whether the client allows the connection to be kept open after this request.
    public var keepAlive: Bool
    /// `Expect: 100-continue` on an HTTP/1.1 request with a body.
    public var expectsContinue: Bool

    public init(method: String, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders,
                framing: BodyFraming = .none, keepAlive: Bool = true, expectsContinue: Bool = false) {
        self.method = method
        self.target = target
        // Split once: the router, the locale, the access log and the handlers all ask.
        let origin = Self.originForm(of: target)
        if let mark = origin.utf8.firstIndex(of: UInt8(ascii: "?")) {
            path = origin[..<mark]
            query = origin[origin.utf8.index(after: mark)...]
        } else {
            path = origin
            query = nil
        }
        self.version = version
        self.headers = headers
        self.framing = framing
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
    }

    // Targets are searched byte by byte: `?` and `/` are ASCII, so a byte index is a valid
    // boundary, and no grapheme breaking is paid for on every request.

    /// The target in origin form: an absolute-form target (`http://host/path`) loses its scheme
    /// and authority, as RFC 9112 section 3.2.2 asks a server to accept.
    static func originForm(of target: String) -> Substring {
        let full = Substring(target)
        guard full.utf8.first != UInt8(ascii: "/"), let colon = full.firstIndex(of: ":"), full[colon...].hasPrefix("://") else { return full }
        let afterAuthority = full[full.index(colon, offsetBy: 3)...]
        guard let slash = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let rest = afterAuthority[slash...]
        return rest.hasPrefix("?") ? Substring("/" + rest) : rest
    }
}

/// A whole request: its head, its body, and what routing found.
public struct Request: Sendable {
    public var head: RequestHead
    public var body: [UInt8]
    /// Values of the `{name}` segments of the matched route, percent-decoded.
    public var parameters: RouteParameters
    /// The request id: a valid incoming `X-Request-Id`, else one made by the server.
    public var id: String
    /// The deepest JSON nesting `decodeJSON` accepts (the server's `maxJSONDepth`).
    public var maxJSONDepth: Int
    /// Whether the client is still there, for an async handler served over a connection (nil
    /// otherwise: no allocation for the others).
    public var client: ClientPresence?

    public init(head: RequestHead, body: [UInt8] = [], parameters: RouteParameters = [:], id: String,
                maxJSONDepth: Int = ServerLimits().maxJSONDepth) {
        self.head = head
        self.body = body
        self.parameters = parameters
        self.id = id
        self.maxJSONDepth = maxJSONDepth
    }

    /// The `{name}` segment of the matched route. The router fills every name its template has,
    /// so a name it lacks is a handler that reads a segment its route does not declare: an error
    /// of the code, answered 500 and logged with the name, never an empty value to look up.
    public func parameter(_ name: String) throws(MissingRouteParameter) -> String {
        guard let value = parameters[name] else { throw MissingRouteParameter(name: name, path: String(head.path)) }
        return value
    }

    public var method: String { head.method }
    public var path: Substring { head.path }
    public var headers: HTTPHeaders { head.headers }

    /// Query parameters, percent-decoded, in order; `+` reads as a space.
    public var queryItems: [(name: String, value: String)] {
        guard let query = head.query, !query.isEmpty else { return [] }
        return query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentDecoding.decode(parts[0], plusIsSpace: true) ?? String(parts[0])
            let value = parts.count > 1 ? (PercentDecoding.decode(parts[1], plusIsSpace: true) ?? String(parts[1])) : ""
            return (name: name, value: value)
        }
    }

    /// The first value of a query parameter.
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}

/// A response to send. Setting the body is all it takes: the connection writes `Content-Length`,
/// `Date`, `Connection` and `X-Request-Id` itself.
public struct Response: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Set for a response whose body goes on after `body` for as long as the connection lasts
    /// (Server-Sent Events): called with the stream once the head and `body` are queued. Such a
    /// response has no length and ends the connection when it ends.
    public var stream: (@Sendable (ResponseStream) -> Void)?

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response that streams: see `stream`.
    public static func streaming(headers: HTTPHeaders, body: [UInt8] = [], _ start: @escaping @Sendable (ResponseStream) -> Void) -> Response {
        var response = Response(status: .ok, headers: headers, body: body)
        response.stream = start
        return response
    }

    /// A JSON response from bytes that are already JSON.
    public static func json(_ status: HTTPStatus = .ok, _ body: [UInt8], headers: HTTPHeaders = [:]) -> Response {
        var headers = headers
        // Room for the fields most JSON answers then get (the language and Vary): one
        // allocation, where adding them one by one grew the list twice.
        headers.reserveCapacity(headers.count + 3)
        headers.set("Content-Type", "application/json")
        return Response(status: status, headers: headers, body: body)
    }
}

enum PercentDecoding {
    /// Decodes `%XX` escapes; nil when an escape is malformed or the result is not UTF-8.
    static func decode(_ text: Substring, plusIsSpace: Bool = false) -> String? {
        // Most segments and values have nothing to decode: then they are the text as it is (a
        // Substring is valid UTF-8 already), with no buffer to fill and validate.
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(ASCII.hexValue),
                      let low = iterator.next().flatMap(ASCII.hexValue) else { return nil }
                bytes.append(UInt8(high << 4 | low))
            } else if plusIsSpace && byte == UInt8(ascii: "+") {
                bytes.append(ASCII.space)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// A handler asked for a path segment its route does not declare.
public struct MissingRouteParameter: Error, Sendable, CustomStringConvertible {
    public var name: String
    public var path: String

    public var description: String { "the route of \(path) has no parameter {\(name)}" }
}
