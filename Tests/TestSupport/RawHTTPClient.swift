import Foundation
import Glibc

/// A response as read off the wire.
public struct RawResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as a JSON object.
    public var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }
}

public struct RawHTTPError: Error, CustomStringConvertible {
    public var description: String
}

/// A client that writes exactly the bytes it is given to a loopback socket and parses what comes
/// back, so tests can send requests no well-behaved library would.
/// Used by one thread at a time; a test hands it between threads only while idle.
public final class RawHTTPClient: @unchecked Sendable {
    public let fd: Int32
    private var buffer: [UInt8] = []

    public init(port: Int, host: String = "127.0.0.1") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTPError(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw RawHTTPError(description: "connect to \(host):\(port): errno \(code)")
        }
    }

    deinit {
        Glibc.close(fd)
    }

    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw RawHTTPError(description: "send: errno \(errno)") }
            offset += count
        }
    }

    /// Reads one response. Bodies are framed by Content-Length, or run to the close.
    public func readResponse(timeout: Duration = .seconds(5), isHead: Bool = false) throws -> RawResponse {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        var headEnd: Int?
        while headEnd == nil {
            headEnd = findHeadEnd()
            if headEnd == nil {
                guard try fill(until: deadline) else { throw RawHTTPError(description: "connection closed before a response head") }
            }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw RawHTTPError(description: "bad status line in \(head)")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = RawResponse(status: status, headers: headers, body: [])
        if isHead || status == 204 || status == 304 || (100..<200).contains(status) { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            while buffer.count < length {
                guard try fill(until: deadline) else { throw RawHTTPError(description: "connection closed inside a body") }
            }
            response.body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else {
            while try fill(until: deadline) {}
            response.body = buffer
            buffer.removeAll()
        }
        return response
    }

    /// Sends a request and reads its response.
    public func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) throws -> RawResponse {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        try send(text)
        return try readResponse(isHead: method == "HEAD")
    }

    /// True when the server closes the connection within `timeout` (having sent nothing more).
    public func waitForClose(timeout: Duration = .seconds(5)) throws -> Bool {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while ContinuousClock.now < deadline {
            if try !fill(until: deadline) { return true }
        }
        return false
    }

    private func findHeadEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4) where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// Reads more bytes; false on a clean close. Throws on timeout.
    private func fill(until deadline: ContinuousClock.Instant) throws -> Bool {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { throw RawHTTPError(description: "timed out waiting for the server") }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(1, remaining / .milliseconds(1)))
        let ready = poll(&poller, 1, milliseconds)
        guard ready > 0 else { throw RawHTTPError(description: "timed out waiting for the server") }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            if errno == ECONNRESET { return false }
            throw RawHTTPError(description: "recv: errno \(errno)")
        }
        if count == 0 { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }
}
