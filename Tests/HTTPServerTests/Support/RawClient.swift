import Glibc
import TestSupport

/// Why a raw-socket operation failed.
enum RawClientError: Error, Equatable, CustomStringConvertible {
    case socketCall(String, Int32)
    /// `connect` failed; the errno (ECONNREFUSED after a shutdown, for instance).
    case connectFailed(Int32)
    case timedOut(String)
    /// The peer closed (or reset) the connection before a whole response arrived.
    case closedBeforeResponse(received: Int)
    case peerClosedWhileSending
    case malformedResponse(String)

    var description: String {
        switch self {
        case .socketCall(let call, let code): "\(call) failed: errno \(code)"
        case .connectFailed(let code): "connect failed: errno \(code)"
        case .timedOut(let what): "timed out: \(what)"
        case .closedBeforeResponse(let received): "connection closed after \(received) bytes of a response"
        case .peerClosedWhileSending: "peer closed while sending"
        case .malformedResponse(let why): "malformed response: \(why)"
        }
    }
}

/// One parsed HTTP/1.1 response as it came off the wire.
struct RawResponse: Sendable, CustomStringConvertible {
    var version: String
    var status: Int
    var reason: String
    /// In the order received, names as sent.
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The first value of a header, compared case-insensitively.
    func header(_ name: String) -> String? { headerValues(name).first }

    func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    var description: String { "\(version) \(status) \(reason) \(headers.map { "\($0.name): \($0.value)" }) body \(body.count) bytes" }
}

/// A deliberately dumb HTTP client on a non-blocking POSIX socket to 127.0.0.1: it sends exactly
/// the bytes it is given and parses exactly what comes back. Waiting is done with short
/// `Task.sleep`s rather than blocking calls, so many clients can run in parallel tests without
/// tying up the (small) cooperative thread pool that the server's async handlers need too.
final class RawClient {
    private(set) var fd: Int32
    /// Received and not yet consumed.
    private var buffer: [UInt8] = []
    /// The peer closed (FIN) or reset the connection.
    private(set) var peerClosed = false
    private(set) var wasReset = false

    private init(fd: Int32) { self.fd = fd }

    deinit { close() }

    static func connect(port: Int, timeout: Duration = .seconds(3)) async throws -> RawClient {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw RawClientError.socketCall("socket", errno) }
        let client = RawClient(fd: fd)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result != 0 {
            let code = errno
            guard code == EINPROGRESS else { throw RawClientError.connectFailed(code) }
            try await client.waitUntil(timeout: timeout, what: "connect") { client.poll(Int16(POLLOUT)) != 0 }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 { throw RawClientError.connectFailed(error) }
        }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return client
    }

    func close() {
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }

    /// Half-closes: the server reads EOF, and may still answer.
    func shutdownWrite() {
        if fd >= 0 { _ = Glibc.shutdown(fd, Int32(SHUT_WR)) }
    }

    // MARK: - Sending

    func send(_ text: String, timeout: Duration = .seconds(5)) async throws {
        try await send(Array(text.utf8), timeout: timeout)
    }

    func send(_ bytes: [UInt8], timeout: Duration = .seconds(5)) async throws {
        var offset = 0
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        var pause = Duration.microseconds(200)
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                offset += count
                pause = .microseconds(200)
                continue
            }
            let code = errno
            switch code {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                guard ContinuousClock.now < deadline else { throw RawClientError.timedOut("send") }
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .milliseconds(5))
            case EPIPE, ECONNRESET:
                throw RawClientError.peerClosedWhileSending
            default:
                throw RawClientError.socketCall("send", code)
            }
        }
    }

    // MARK: - Receiving

    /// Reads a whole response: head, then a body of `Content-Length` bytes (none for 1xx, 204,
    /// 304, or when `expectBody` is false, as for a HEAD request). Bytes after it stay buffered
    /// for the next call, so pipelined responses can be read one by one.
    func readResponse(timeout: Duration = .seconds(5), expectBody: Bool = true) async throws -> RawResponse {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        var headEnd: Int?
        while true {
            headEnd = Self.find([13, 10, 13, 10], in: buffer)
            if headEnd != nil { break }
            guard try await receiveMore(until: deadline, what: "response head") else {
                throw RawClientError.closedBeforeResponse(received: buffer.count)
            }
        }
        var response = try Self.parseHead(Array(buffer[0..<headEnd!]))
        let bodyStart = headEnd! + 4
        var length = 0
        let hasBody = expectBody && !(100..<200).contains(response.status) && response.status != 204 && response.status != 304
        if hasBody {
            guard let text = response.header("Content-Length"), let value = Int(text), value >= 0 else {
                throw RawClientError.malformedResponse("no usable Content-Length in \(response)")
            }
            length = value
        }
        while buffer.count - bodyStart < length {
            guard try await receiveMore(until: deadline, what: "response body") else {
                throw RawClientError.closedBeforeResponse(received: buffer.count)
            }
        }
        response.body = Array(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        return response
    }

    /// Waits for the peer to close the connection and returns every byte received before that.
    /// Throws `timedOut` if the connection is still open when `timeout` ends.
    func readUntilClosed(timeout: Duration = .seconds(3)) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while try await receiveMore(until: deadline, what: "connection close") {}
        let rest = buffer
        buffer.removeAll()
        return rest
    }

    /// True when the peer closes the connection within `timeout` (any bytes before that are
    /// dropped); false when it is still open.
    func closesWithin(_ timeout: Duration) async -> Bool {
        do {
            _ = try await readUntilClosed(timeout: timeout)
            return true
        } catch {
            return false
        }
    }

    /// True when at least one byte (or a close) arrives within `timeout`.
    func receivesAnythingWithin(_ timeout: Duration) async throws -> Bool {
        if !buffer.isEmpty || peerClosed { return true }
        do {
            _ = try await receiveMore(until: ContinuousClock.now + timeout, what: "anything")
            return true
        } catch RawClientError.timedOut {
            return false
        }
    }

    /// Reads whatever is available, waiting for something until `deadline`. False on EOF or reset.
    private func receiveMore(until deadline: ContinuousClock.Instant, what: String) async throws -> Bool {
        if peerClosed { return false }
        var pause = Duration.microseconds(200)
        while true {
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
            if count == 0 {
                peerClosed = true
                return false
            }
            let code = errno
            switch code {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                guard ContinuousClock.now < deadline else { throw RawClientError.timedOut(what) }
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .milliseconds(5))
            case ECONNRESET:
                peerClosed = true
                wasReset = true
                return false
            default:
                throw RawClientError.socketCall("recv", code)
            }
        }
    }

    private func poll(_ events: Int16) -> Int16 {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        return Glibc.poll(&entry, 1, 0) > 0 ? entry.revents : 0
    }

    private func waitUntil(timeout: Duration, what: String, _ ready: () -> Bool) async throws {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while !ready() {
            guard ContinuousClock.now < deadline else { throw RawClientError.timedOut(what) }
            try await Task.sleep(for: .microseconds(500))
        }
    }

    // MARK: - Parsing

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start }
        }
        return nil
    }

    /// Parses a status line and header lines (without the blank line that ends them).
    static func parseHead(_ bytes: [UInt8]) throws -> RawResponse {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty else { throw RawClientError.malformedResponse("empty head") }
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw RawClientError.malformedResponse("status line \(statusLine)")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else {
                throw RawClientError.malformedResponse("header line \(line)")
            }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingRawSpaces()
            headers.append((name, value))
        }
        return RawResponse(version: parts[0], status: status, reason: parts.count > 2 ? parts[2] : "", headers: headers, body: [])
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    func trimmingRawSpaces() -> String {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return String(result)
    }
}
