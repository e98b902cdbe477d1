/// A response as it goes on the wire. The connection writes the framing and bookkeeping headers
/// itself (`Content-Length`, `Date`, `X-Request-Id`, `Connection`), so a handler's own values for
/// them, and any `Transfer-Encoding`, are left out. Every answer also says, unless its handler
/// said otherwise: don't sniff its type, don't frame it, don't store it (most carry a user's data;
/// the few that may be kept, such as the dashboard's files, set their own `Cache-Control`).
enum ResponseSerializer {
    /// The interim answer to `Expect: 100-continue`, sent before the body is read.
    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Whether the response has no body on the wire: one to HEAD (RFC 9110 section 9.3.2), and
    /// 204 and 304, which never have one.
    static func omitsBody(method: String, status: HTTPStatus) -> Bool {
        method == "HEAD" || status.code == 204 || status.code == 304
    }

    static func serialize(_ response: Response, requestID: String, keepAlive: Bool, http10: Bool, omitBody: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(192 + (omitBody ? 0 : response.body.count))
        func line(_ name: String, _ value: String) {
            bytes.append(contentsOf: name.utf8)
            bytes.append(contentsOf: ": ".utf8)
            bytes.append(contentsOf: value.utf8)
            bytes.append(contentsOf: "\r\n".utf8)
        }
        bytes.append(contentsOf: "HTTP/1.1 ".utf8)
        bytes.append(contentsOf: String(response.status.code).utf8)
        bytes.append(ASCII.space)
        bytes.append(contentsOf: response.status.reasonPhrase.utf8)
        bytes.append(contentsOf: "\r\n".utf8)
        var (setsSniffing, setsFraming, setsCaching) = (false, false, false)
        for field in response.headers where !managedHeaders.contains(where: { HTTPHeaders.sameName($0, field.name) }) {
            line(field.name, field.value)
            setsSniffing = setsSniffing || HTTPHeaders.sameName("X-Content-Type-Options", field.name)
            setsFraming = setsFraming || HTTPHeaders.sameName("X-Frame-Options", field.name)
            setsCaching = setsCaching || HTTPHeaders.sameName("Cache-Control", field.name)
        }
        if !setsSniffing { bytes.append(contentsOf: Self.noSniffing) }
        if !setsFraming { bytes.append(contentsOf: Self.noFraming) }
        if !setsCaching { bytes.append(contentsOf: Self.noStoring) }
        if response.status.code != 204 && response.status.code != 304 && response.stream == nil {
            line("Content-Length", String(response.body.count))
        }
        line("Date", HTTPDate.shared.now)
        line("X-Request-Id", requestID)
        if !keepAlive {
            line("Connection", "close")
        } else if http10 {
            line("Connection", "keep-alive")
        }
        bytes.append(contentsOf: "\r\n".utf8)
        if !omitBody { bytes.append(contentsOf: response.body) }
        return bytes
    }

    private static let managedHeaders = ["Content-Length", "Date", "X-Request-Id", "Connection", "Transfer-Encoding"]
    private static let noSniffing = Array("X-Content-Type-Options: nosniff\r\n".utf8)
    private static let noFraming = Array("X-Frame-Options: DENY\r\n".utf8)
    private static let noStoring = Array("Cache-Control: no-store\r\n".utf8)
}
