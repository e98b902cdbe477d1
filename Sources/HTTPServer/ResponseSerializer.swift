import JSON

/// A response as it goes on the wire. The connection writes the framing and bookkeeping headers
/// itself (`Content-Length`, `Date`, `X-Request-Id`, `Connection`), so a handler's own values for
/// them, and any `Transfer-Encoding`, are left out. Every answer also says, unless its handler
/// said otherwise: don't sniff its type, don't frame it, don't store it (most carry a user's data;
/// the few that may be kept, such as the dashboard's files, set their own `Cache-Control`).
///
/// This runs for every response: the fixed fields are literals copied in whole, the date of
/// this second comes prepared, and numbers are written as digits in place.
enum ResponseSerializer {
    /// The interim answer to `Expect: 100-continue`, sent before the body is read.
    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Whether the response has no body on the wire: one to HEAD (RFC 9110 section 9.3.2), and
    /// 204 and 304, which never have one.
    static func omitsBody(method: String, status: HTTPStatus) -> Bool {
        method == "HEAD" || status.code == 204 || status.code == 304
    }

    /// Appends the response to `bytes`, a connection's output buffer. `dateField` is the `Date`
    /// field's line, as `HTTPDateField` keeps it.
    static func serialize(_ response: Response, requestID: String, keepAlive: Bool, http10: Bool, omitBody: Bool,
                          dateField: [UInt8], into bytes: inout [UInt8]) {
        // Room for the whole answer at once: the head's fixed fields take under 320 bytes, and
        // growing the buffer midway copied it into an allocation of twice the size.
        var headerBytes = 0
        for field in response.headers { headerBytes += field.name.utf8.count + field.value.utf8.count + 4 }
        bytes.reserveCapacity(bytes.count + 320 + headerBytes + (omitBody ? 0 : response.body.count))
        bytes.append("HTTP/1.1 ")
        bytes.appendDecimal(response.status.code)
        bytes.append(ASCII.space)
        bytes.appendUTF8(response.status.reasonPhrase)
        bytes.append("\r\n")
        var (setsSniffing, setsFraming, setsCaching) = (false, false, false)
        for field in response.headers where !managedHeaders.contains(where: { HTTPHeaders.sameName($0, field.name) }) {
            bytes.appendUTF8(field.name)
            bytes.append(": ")
            bytes.appendUTF8(field.value)
            bytes.append("\r\n")
            setsSniffing = setsSniffing || HTTPHeaders.sameName("X-Content-Type-Options", field.name)
            setsFraming = setsFraming || HTTPHeaders.sameName("X-Frame-Options", field.name)
            setsCaching = setsCaching || HTTPHeaders.sameName("Cache-Control", field.name)
        }
        if !setsSniffing { bytes.append("X-Content-Type-Options: nosniff\r\n") }
        if !setsFraming { bytes.append("X-Frame-Options: DENY\r\n") }
        if !setsCaching { bytes.append("Cache-Control: no-store\r\n") }
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
    }

    private static let managedHeaders = ["Content-Length", "Date", "X-Request-Id", "Connection", "Transfer-Encoding"]
}
