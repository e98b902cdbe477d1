/// The protocol version of a request, as written in its request line.
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    public var description: String { "HTTP/\(major).\(minor)" }
}

/// A status code with its reason phrase (RFC 9110, section 15).
public struct HTTPStatus: Sendable, Hashable, CustomStringConvertible {
    public var code: Int
    public var reasonPhrase: String

    public init(code: Int, reasonPhrase: String? = nil) {
        self.code = code
        self.reasonPhrase = reasonPhrase ?? HTTPStatus.standardPhrase(for: code)
    }

    public var description: String { "\(code) \(reasonPhrase)" }

    public static let `continue` = HTTPStatus(code: 100)
    public static let ok = HTTPStatus(code: 200)
    public static let created = HTTPStatus(code: 201)
    public static let accepted = HTTPStatus(code: 202)
    public static let noContent = HTTPStatus(code: 204)
    public static let badRequest = HTTPStatus(code: 400)
    public static let unauthorized = HTTPStatus(code: 401)
    public static let forbidden = HTTPStatus(code: 403)
    public static let notFound = HTTPStatus(code: 404)
    public static let methodNotAllowed = HTTPStatus(code: 405)
    public static let requestTimeout = HTTPStatus(code: 408)
    public static let conflict = HTTPStatus(code: 409)
    public static let contentTooLarge = HTTPStatus(code: 413)
    public static let uriTooLong = HTTPStatus(code: 414)
    public static let unsupportedMediaType = HTTPStatus(code: 415)
    public static let expectationFailed = HTTPStatus(code: 417)
    public static let unprocessableContent = HTTPStatus(code: 422)
    public static let tooManyRequests = HTTPStatus(code: 429)
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    public static let internalServerError = HTTPStatus(code: 500)
    public static let notImplemented = HTTPStatus(code: 501)
    public static let serviceUnavailable = HTTPStatus(code: 503)
    public static let httpVersionNotSupported = HTTPStatus(code: 505)

    static func standardPhrase(for code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status \(code)"
        }
    }
}

/// Header fields in the order they arrived. Names are compared case-insensitively; the parser
/// stores request field names in lower case, so lookups of lower-case names are exact.
public struct HTTPHeaders: Sendable, Sequence, Equatable, ExpressibleByDictionaryLiteral {
    public typealias Field = (name: String, value: String)
    public private(set) var fields: [Field] = []

    public init() {}

    /// Room for `capacity` fields, so that a request's usual few cost one allocation.
    public init(capacity: Int) { fields.reserveCapacity(capacity) }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }

    /// Room for `count` fields in all, so that adding up to that many allocates nothing more.
    public mutating func reserveCapacity(_ count: Int) { fields.reserveCapacity(count) }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of the named field.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of the named field, in order.
    public func values(_ name: String) -> [String] {
        // Most lookups find nothing or one field: no array is built until one matches.
        var found: [String] = []
        for field in fields where Self.sameName(field.name, name) { found.append(field.value) }
        return found
    }

    /// How many fields have this name: `values(name).count` without building the array.
    public func count(of name: String) -> Int {
        var count = 0
        for field in fields where Self.sameName(field.name, name) { count += 1 }
        return count
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Sets a field, replacing every earlier value of it.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    static func sameName(_ a: String, _ b: String) -> Bool {
        // The parser stores names in lower case and lookups use lower case: most comparisons are
        // settled by the length, or by the plain (memcmp) equality.
        guard a.utf8.count == b.utf8.count else { return false }
        return a == b || a.utf8.elementsEqual(b.utf8) { ASCII.lower($0) == ASCII.lower($1) }
    }
}

enum ASCII {
    static let cr: UInt8 = 13
    static let lf: UInt8 = 10
    static let space: UInt8 = 32
    static let tab: UInt8 = 9
    static let colon: UInt8 = 58

    @inline(__always) static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte | 0x20 : byte
    }

    /// `tchar` of RFC 9110, section 5.6.2: the characters of methods and field names.
    static let isTokenChar: [Bool] = (0..<256).map { value in
        let byte = UInt8(value)
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    @inline(__always) static func isHexDigit(_ byte: UInt8) -> Bool { hexValue(byte) != nil }

    @inline(__always) static func hexValue(_ byte: UInt8) -> UInt64? {
        switch byte {
        case 48...57: UInt64(byte - 48)
        case 65...70: UInt64(byte - 55)
        case 97...102: UInt64(byte - 87)
        default: nil
        }
    }
}
