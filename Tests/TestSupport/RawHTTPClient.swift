import Foundation
import Glibc

/// A response as read off the wire.
public struct RawResponse: Sendable, CustomStringConvertible {
    public var version: String
    public var status: Int
    public var reason: String
    /// In the order received, names as sent.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// The first value of a header, its name compared case-insensitively.
    public func header(_ name: String) -> String? { headerValues(name).first }

    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as a JSON object.
    public var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }

    public var description: String { "\(version) \(status) \(reason) \(headers.map { "\($0.name): \($0.value)" }) body \(body.count) bytes" }
}

/// Why a raw-socket operation failed.
public enum RawHTTPError: Error, Equatable, CustomStringConvertible {
    case socketCall(String, Int32)
    /// `connect` failed; the errno (ECONNREFUSED after a shutdown, for instance).
    case connectFailed(Int32)
    case timedOut(String)
    /// The peer closed (or reset) the connection before a whole response arrived.
    case closedBeforeResponse(received: Int)
    case peerClosedWhileSending
    case malformedResponse(String)

    public var description: String {
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

/// A deliberately dumb HTTP client on a loopback socket: it sends exactly the bytes it is given,
/// so tests can send requests no well-behaved library would, and parses exactly what comes back.
///
/// Each operation comes twice. The plain one blocks its thread in `poll`, for a thread of the
/// test's own (see `blocking`). The async one waits in short `Task.sleep`s instead, so that many
/// clients can wait at once in parallel tests without tying up the few threads of the concurrency
/// pool that an in-process server's async handlers need too.
///
/// Used by one thread at a time; a test hands it between threads only while idle.
public final class RawHTTPClient: @unchecked Sendable {
    private var fd: Int32
    /// Received and not yet consumed.
    private var buffer: [UInt8] = []
    /// The peer closed (FIN) or reset the connection.
    public private(set) var peerClosed = false
    /// For a client of several instances (`rotatingOver`): their connections after this one's
    /// own, the turn of the next `request`, and what follows each change.
    private var rotation: (others: [RawHTTPClient], next: Int, afterChange: (Duration) throws -> Void)?
    /// Where the socket connects: kept to connect again (`reconnectsWhenClosedIdle`).
    private let address: (port: Int, host: String)
    /// Before a `request`, connect again if the server closed the connection while it sat idle,
    /// as a load balancer's pool or any HTTP client library does. For clients of the API rather
    /// than of the HTTP layer: a connection can sit unused past the server's header or keep-alive
    /// timeout (a rotating client's, while the test talks to the other instances; any, on a slow
    /// machine), and a request sent on it then meets a close the test did not ask about.
    public var reconnectsWhenClosedIdle = false

    /// A client that sends each `request` to the next of `ports` in turn (round robin, as a load
    /// balancer would), calling `afterChange` with the time each request that is not a GET or
    /// HEAD took, after it. Raw
    /// bytes (`send`, `readResponse`) go to the first port's connection.
    public convenience init(rotatingOver ports: [Int], afterChange: @escaping (Duration) throws -> Void) throws {
        try self.init(port: ports[0])
        let others = try ports.dropFirst().map { try RawHTTPClient(port: $0) }
        for client in [self] + others { client.reconnectsWhenClosedIdle = true }
        rotation = (others, 0, afterChange)
    }

    /// Connects, blocking until the connection is made.
    public convenience init(port: Int, host: String = "127.0.0.1", timeout: Duration = .seconds(5)) throws {
        try self.init(connectingTo: port, host: host)
        try retryPolling(until: Self.deadline(timeout), for: Int16(POLLOUT), "connect") { try connected() }
    }

    /// Connects, waiting in short sleeps until the connection is made.
    public static func connect(port: Int, host: String = "127.0.0.1", timeout: Duration = .seconds(5)) async throws -> RawHTTPClient {
        let client = try RawHTTPClient(connectingTo: port, host: host)
        try await client.retrySleeping(until: deadline(timeout), "connect") { try client.connected() }
        return client
    }

    /// A non-blocking socket whose connect has begun.
    private init(connectingTo port: Int, host: String) throws {
        address = (port, host)
        fd = try Self.startConnecting(to: port, host: host)
    }

    private static func startConnecting(to port: Int, host: String) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw RawHTTPError.socketCall("socket", errno) }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result != 0 && errno != EINPROGRESS {
            let code = errno
            Glibc.close(fd)
            throw RawHTTPError.connectFailed(code)
        }
        return fd
    }

    /// Whether the peer closed (or reset) this connection while nothing was asked of it: it is
    /// readable with no response pending, and what it has to read is its end.
    private func closedWhileIdle() -> Bool {
        guard buffer.isEmpty else { return false }
        if peerClosed { return true }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        let count = Glibc.recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }

    /// Replaces a connection the server closed with a new one to the same address.
    private func reconnect(timeout: Duration) throws {
        Glibc.close(fd)
        fd = try Self.startConnecting(to: address.port, host: address.host)
        buffer = []
        peerClosed = false
        try retryPolling(until: Self.deadline(timeout), for: Int16(POLLOUT), "connect") { try connected() }
    }

    deinit { close() }

    public func close() {
        for other in rotation?.others ?? [] { other.close() }
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }

    /// Half-closes: the server reads the end of input, and may still answer.
    public func shutdownWrite() {
        if fd >= 0 { _ = Glibc.shutdown(fd, Int32(SHUT_WR)) }
    }

    // MARK: - Sending

    public func send(_ text: String, timeout: Duration = .seconds(5)) throws {
        try send(Array(text.utf8), timeout: timeout)
    }

    public func send(_ bytes: [UInt8], timeout: Duration = .seconds(5)) throws {
        var offset = 0
        try retryPolling(until: Self.deadline(timeout), for: Int16(POLLOUT), "send") { try sendMore(bytes, from: &offset) }
    }

    public func send(_ text: String, timeout: Duration = .seconds(5)) async throws {
        try await send(Array(text.utf8), timeout: timeout)
    }

    public func send(_ bytes: [UInt8], timeout: Duration = .seconds(5)) async throws {
        var offset = 0
        try await retrySleeping(until: Self.deadline(timeout), "send") { try sendMore(bytes, from: &offset) }
    }

    /// Sends a request and reads its response. The default wait is generous: the black-box suites
    /// run their services side by side on a debug build, and a busy host stretches an answer that
    /// takes milliseconds alone past seconds. A test about timing passes its own.
    public func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil,
                        timeout: Duration = .seconds(20)) throws -> RawResponse {
        guard let turn = rotation?.next, let others = rotation?.others else {
            return try requestHere(method, path, headers: headers, body: body, timeout: timeout)
        }
        rotation?.next = (turn + 1) % (others.count + 1)
        let client = turn == 0 ? self : others[turn - 1]
        let started = ContinuousClock.now
        let response = try client.requestHere(method, path, headers: headers, body: body, timeout: timeout)
        if !["GET", "HEAD"].contains(method) { try rotation?.afterChange(ContinuousClock.now - started) }
        return response
    }

    /// Sends a request and reads its response without blocking a thread: for a server in the test's
    /// own process, whose handlers need the threads that a blocking wait would hold.
    public func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil,
                        timeout: Duration = .seconds(5)) async throws -> RawResponse {
        precondition(rotation == nil, "a rotating client is for services in other processes")
        try await send(Self.requestText(method, path, headers: headers, body: body), timeout: timeout)
        return try await readResponse(timeout: timeout, expectBody: method != "HEAD")
    }

    private func requestHere(_ method: String, _ path: String, headers: [String: String], body: String?,
                             timeout: Duration) throws -> RawResponse {
        if reconnectsWhenClosedIdle && closedWhileIdle() { try reconnect(timeout: timeout) }
        try send(Self.requestText(method, path, headers: headers, body: body), timeout: timeout)
        return try readResponse(timeout: timeout, expectBody: method != "HEAD")
    }

    private static func requestText(_ method: String, _ path: String, headers: [String: String], body: String?) -> String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        return text + "\r\n" + (body ?? "")
    }

    // MARK: - Receiving

    /// Reads a whole response: head, then a body of `Content-Length` bytes, or to the close
    /// without one (none for 1xx, 204, 304, or when `expectBody` is false, as for a HEAD
    /// request). Bytes after it stay buffered for the next call, so pipelined responses can be
    /// read one by one.
    public func readResponse(timeout: Duration = .seconds(5), expectBody: Bool = true) throws -> RawResponse {
        try retryPolling(until: Self.deadline(timeout), for: Int16(POLLIN), "response") { try receive { try bufferedResponse(expectBody: expectBody) } }
    }

    public func readResponse(timeout: Duration = .seconds(5), expectBody: Bool = true) async throws -> RawResponse {
        try await retrySleeping(until: Self.deadline(timeout), "response") { try receive { try bufferedResponse(expectBody: expectBody) } }
    }

    /// Reads until `take` finds what it wants at the start of the buffer: it returns that and how
    /// many bytes it used (removed from the buffer), or nil to wait for more. For streamed
    /// responses, read a piece at a time.
    public func read<T>(timeout: Duration = .seconds(5), _ what: String = "stream data",
                        _ take: @escaping ([UInt8]) throws -> (T, used: Int)?) throws -> T {
        try retryPolling(until: Self.deadline(timeout), for: Int16(POLLIN), what) {
            try receive {
                guard let (found, used) = try take(buffer) else { return nil }
                buffer.removeFirst(used)
                return found
            }
        }
    }

    /// Waits for the peer to close the connection and returns every byte received before that.
    /// Throws `timedOut` if the connection is still open when `timeout` ends.
    public func readUntilClosed(timeout: Duration = .seconds(3)) throws -> [UInt8] {
        try retryPolling(until: Self.deadline(timeout), for: Int16(POLLIN), "connection close") { try receive(untilClosed) }
    }

    public func readUntilClosed(timeout: Duration = .seconds(3)) async throws -> [UInt8] {
        try await retrySleeping(until: Self.deadline(timeout), "connection close") { try receive(untilClosed) }
    }

    /// True when the peer closes the connection within `timeout` (any bytes before that are
    /// dropped); false when it is still open.
    public func closesWithin(_ timeout: Duration) -> Bool {
        (try? readUntilClosed(timeout: timeout)) != nil
    }

    public func closesWithin(_ timeout: Duration) async -> Bool {
        (try? await readUntilClosed(timeout: timeout)) != nil
    }

    /// True when at least one byte (or a close) arrives within `timeout`.
    public func receivesAnythingWithin(_ timeout: Duration) async throws -> Bool {
        do {
            return try await retrySleeping(until: .now + timeout, "anything") {
                try receive { !buffer.isEmpty || peerClosed ? true : nil }
            }
        } catch RawHTTPError.timedOut {
            return false
        }
    }

    // MARK: - Waiting

    private static func deadline(_ timeout: Duration) -> ContinuousClock.Instant {
        .now + TestTiming.scaled(timeout)
    }

    /// Tries `attempt` until it has a result, blocking in `poll` for `events` in between.
    private func retryPolling<T>(until deadline: ContinuousClock.Instant, for events: Int16, _ what: String,
                          _ attempt: () throws -> T?) throws -> T {
        while true {
            if let result = try attempt() { return result }
            let remaining = deadline - .now
            guard remaining > .zero else { throw RawHTTPError.timedOut(what) }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            _ = poll(&entry, 1, Int32(max(1, remaining / .milliseconds(1))))
        }
    }

    /// Tries `attempt` until it has a result, sleeping a little longer each time in between.
    private func retrySleeping<T>(until deadline: ContinuousClock.Instant, _ what: String, _ attempt: () throws -> T?) async throws -> T {
        var pause = Duration.microseconds(200)
        while true {
            if let result = try attempt() { return result }
            guard ContinuousClock.now < deadline else { throw RawHTTPError.timedOut(what) }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(5))
        }
    }

    // MARK: - Socket calls, none of which waits

    /// () once the connect has finished, nil while it is under way.
    private func connected() throws -> Void? {
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return nil }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        if error != 0 { throw RawHTTPError.connectFailed(error) }
        return ()
    }

    /// Sends what the socket takes of `bytes` from `offset` on: () once all is sent, nil when
    /// the socket is full.
    private func sendMore(_ bytes: [UInt8], from offset: inout Int) throws -> Void? {
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                offset += count
                continue
            }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            case EPIPE, ECONNRESET: throw RawHTTPError.peerClosedWhileSending
            default: throw RawHTTPError.socketCall("send", code)
            }
        }
        return ()
    }

    /// Reads what the socket has until `result` finds what it needs in the buffer (nil: the
    /// socket is drained and it needs more). Once the peer has closed, `result` must decide.
    private func receive<T>(_ result: () throws -> T?) throws -> T? {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if let found = try result() { return found }
            if peerClosed { throw RawHTTPError.closedBeforeResponse(received: buffer.count) }
            let count = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                continue
            }
            if count == 0 {
                peerClosed = true
                continue
            }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            case ECONNRESET: peerClosed = true
            default: throw RawHTTPError.socketCall("recv", code)
            }
        }
    }

    /// Everything received, once the peer has closed.
    private func untilClosed() -> [UInt8]? {
        guard peerClosed else { return nil }
        defer { buffer.removeAll() }
        return buffer
    }

    /// The first response in the buffer, if it is all there (see `readResponse`).
    private func bufferedResponse(expectBody: Bool) throws -> RawResponse? {
        guard let headEnd = Self.find([13, 10, 13, 10], in: buffer) else { return nil }
        var response = try Self.parseHead(buffer[..<headEnd])
        let bodyStart = headEnd + 4
        var length = 0
        if expectBody && !(100..<200).contains(response.status) && response.status != 204 && response.status != 304 {
            if let text = response.header("Content-Length") {
                guard let value = Int(text), value >= 0 else {
                    throw RawHTTPError.malformedResponse("no usable Content-Length in \(response)")
                }
                length = value
            } else {
                guard peerClosed else { return nil }
                length = buffer.count - bodyStart
            }
        }
        guard buffer.count - bodyStart >= length else { return nil }
        response.body = Array(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        return response
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
        }
        return nil
    }

    /// Parses a status line and header lines (without the blank line that ends them).
    static func parseHead(_ bytes: ArraySlice<UInt8>) throws -> RawResponse {
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw RawHTTPError.malformedResponse("status line \(statusLine)")
        }
        let headers = try lines.map { line -> (name: String, value: String) in
            guard let colon = line.firstIndex(of: ":") else { throw RawHTTPError.malformedResponse("header line \(line)") }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return RawResponse(version: parts[0], status: status, reason: parts.count > 2 ? parts[2] : "", headers: headers, body: [])
    }
}
