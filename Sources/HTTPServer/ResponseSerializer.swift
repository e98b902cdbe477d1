import JSON

/// A response as it goes on the wire. The connection writes the framing and bookkeeping headers
/// itself (`Content-Length`, `Date`, `X-Request-Id`, `Connection`), so a handler's own values for
/// them, and any `Transfer-Encoding`, are left out. Every answer also says, unless its handler
/// said otherwise: don't sniff its type, don't frame it, don't store it (most carry a user's data;
/// the few that may be kept, such as the dashboard's files, set their own `Cache-Control`).
///
/// This runs for every response: what is the same for many (a status line, the date of this
/// second, the fixed fields) is copied in as prepared bytes, and numbers are written as digits
/// in place.
enum ResponseSerializer {
    /// The interim answer to `Expect: 100-continue`, sent before the body is read.
    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Whether the response has no body on the wire: one to HEAD (RFC 9110 section 9.3.2), and
    /// 204 and 304, which never have one.
    static func omitsBody(method: String, status: HTTPStatus) -> Bool {
        method == "HEAD" || status.code == 204 || status.code == 304
    }

    /// `dateField` is the `Date` field's line, as `HTTPDateField` keeps it.
    static func serialize(_ response: Response, requestID: String, keepAlive: Bool, http10: Bool, omitBody: Bool,
                          dateField: [UInt8]) -> [UInt8] {
        // Room for the whole answer at once: the head's fixed fields take under 320 bytes, and
        // growing the buffer midway copied it into an allocation of twice the size.
        var headerBytes = 0
        for field in response.headers { headerBytes += field.name.utf8.count + field.value.utf8.count + 4 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320 + headerBytes + (omitBody ? 0 : response.body.count))
        func line(_ name: String, _ value: String) {
            bytes.appendUTF8(name)
            bytes.append(": ")
            bytes.appendUTF8(value)
            bytes.append("\r\n")
        }
        appendStatusLine(response.status, to: &bytes)
        var (setsSniffing, setsFraming, setsCaching) = (false, false, false)
        for field in response.headers where !managedHeaders.contains(where: { HTTPHeaders.sameName($0, field.name) }) {
            line(field.name, field.value)
            setsSniffing = setsSniffing || HTTPHeaders.sameName("X-Content-Type-Options", field.name)
            setsFraming = setsFraming || HTTPHeaders.sameName("X-Frame-Options", field.name)
            setsCaching = setsCaching || HTTPHeaders.sameName("Cache-Control", field.name)
        }
        if !setsSniffing && !setsFraming && !setsCaching {
            bytes.append(Self.defaultPolicies)
        } else {
            if !setsSniffing { bytes.append(Self.noSniffing) }
            if !setsFraming { bytes.append(Self.noFraming) }
            if !setsCaching { bytes.append(Self.noStoring) }
        }
        if response.status.code != 204 && response.status.code != 304 && response.stream == nil {
            bytes.append("Content-Length: ")
            bytes.appendDecimal(response.body.count)
            bytes.append("\r\n")
        }
        bytes.append(contentsOf: dateField)
        bytes.append("X-Request-Id: ")
        bytes.appendUTF8(requestID)
        bytes.append("\r\n")
        if !keepAlive {
            bytes.append("Connection: close\r\n")
        } else if http10 {
            bytes.append("Connection: keep-alive\r\n")
        }
        bytes.append("\r\n")
        if !omitBody { bytes.append(contentsOf: response.body) }
        return bytes
    }

    /// `HTTP/1.1 200 OK` and its CRLF: prepared for the standard phrase of the usual codes.
    private static func appendStatusLine(_ status: HTTPStatus, to bytes: inout [UInt8]) {
        if let prepared = preparedStatusLines[status.code], status.reasonPhrase == HTTPStatus.standardPhrase(for: status.code) {
            bytes.append(contentsOf: prepared)
            return
        }
        bytes.append("HTTP/1.1 ")
        bytes.appendDecimal(status.code)
        bytes.append(ASCII.space)
        bytes.appendUTF8(status.reasonPhrase)
        bytes.append("\r\n")
    }

    private static let preparedStatusLines: [Int: [UInt8]] = Dictionary(uniqueKeysWithValues: [
        200, 201, 202, 204, 400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 500, 503,
    ].map { code in (code, Array("HTTP/1.1 \(code) \(HTTPStatus.standardPhrase(for: code))\r\n".utf8)) })

    private static let managedHeaders = ["Content-Length", "Date", "X-Request-Id", "Connection", "Transfer-Encoding"]
    private static let noSniffing: StaticString = "X-Content-Type-Options: nosniff\r\n"
    private static let noFraming: StaticString = "X-Frame-Options: DENY\r\n"
    private static let noStoring: StaticString = "Cache-Control: no-store\r\n"
    /// All three, as most responses have them.
    private static let defaultPolicies: StaticString = "X-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\nCache-Control: no-store\r\n"
}
