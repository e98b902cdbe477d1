import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy in front of the service that fails on request: it drops a request's answer after
/// the service acted on it (a connection lost at the worst moment), answers 503 itself, or cuts
/// every open connection (a live stream dropped mid-way). It counts requests and connections, so
/// a test sees what the client really sent.
final class FaultyProxy: @unchecked Sendable {
    enum Fault: Sendable {
        /// Forward the request, then close the connection instead of passing its answer on.
        case dropAnswer
        /// Answer `503 store_unavailable` with this `Retry-After`, without forwarding.
        case unavailable(retryAfter: Int)
    }

    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let lock = NSLock()
    private var faults: [Fault] = []
    private var sockets: Set<Int32> = []
    private var heads: [String] = []
    private var connectionCount = 0
    private var closed = false
    private var refusing = false
    private var refusedCount = 0

    init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = Self.loopback(port: 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            Glibc.close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { close() }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Faults for the next requests, one each, in order.
    func inject(_ faults: Fault...) { lock.withLock { self.faults += faults } }

    /// The heads of the requests seen (`POST /v1/... HTTP/1.1` and the header lines), in order.
    var requests: [String] { lock.withLock { heads } }

    /// The request lines seen, in order.
    var requestLines: [String] { requests.map { $0.components(separatedBy: "\r\n")[0] } }

    /// While true, new connections are closed at once (the service looks unreachable).
    func refuseConnections(_ refuse: Bool) { lock.withLock { refusing = refuse } }

    /// Connections closed at once while refusing.
    var refused: Int { lock.withLock { refusedCount } }

    /// Connections accepted so far.
    var connections: Int { lock.withLock { connectionCount } }

    /// Cuts every open connection, both ways.
    ///
    /// Under the lock: a pair that finishes leaves `sockets` under it before closing its
    /// descriptors, so none is shut after its number went to another socket of the process (a
    /// parallel test's connection, which would see its answer cut off).
    func dropConnections() {
        lock.withLock { for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) } }
    }

    /// Stops accepting and cuts every open connection. The accepting thread closes the listener
    /// once its `accept` fails, so that it never accepts on a number reused meanwhile.
    func close() {
        lock.withLock {
            guard !closed else { return }
            closed = true
            shutdown(listener, Int32(SHUT_RDWR))
            for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                Glibc.close(listener)
                return
            }
            if lock.withLock({ refusedCount += refusing && !closed ? 1 : 0; return refusing || closed }) {
                Glibc.close(client)
                continue
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                Glibc.close(client)
                Glibc.close(upstream)
                continue
            }
            let open = lock.withLock {
                guard !closed else { return false }
                connectionCount += 1
                sockets.formUnion([client, upstream])
                return true
            }
            guard open else {
                Glibc.close(client)
                Glibc.close(upstream)
                continue
            }
            let pair = Pair(client: client, upstream: upstream)
            Thread { [self] in clientToUpstream(pair) }.start()
            Thread { [self] in upstreamToClient(pair) }.start()
        }
    }

    /// One proxied connection: whether the next bytes from the client start a request, and
    /// what to do with the answer to the one in flight.
    private final class Pair: @unchecked Sendable {
        let client: Int32
        let upstream: Int32
        let lock = NSLock()
        var awaitingRequest = true
        var dropAnswer = false
        var finished = 0

        init(client: Int32, upstream: Int32) {
            self.client = client
            self.upstream = upstream
        }
    }

    private func clientToUpstream(_ pair: Pair) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(pair.client, &buffer, buffer.count)
            guard count > 0 else { break }
            let startsRequest = pair.lock.withLock {
                defer { pair.awaitingRequest = false }
                return pair.awaitingRequest
            }
            if startsRequest {
                let text = String(decoding: buffer[..<count], as: UTF8.self)
                let head = text.components(separatedBy: "\r\n\r\n")[0]
                let fault: Fault? = lock.withLock {
                    heads.append(head)
                    return faults.isEmpty ? nil : faults.removeFirst()
                }
                switch fault {
                case .unavailable(let retryAfter)?:
                    let body = #"{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"The store cannot take this now.","code":"store_unavailable","request_id":"proxy"}"#
                    let answer = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\nRetry-After: \(retryAfter)\r\n"
                        + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
                    writeAll(pair.client, Array(answer.utf8))
                    shutdown(pair.client, Int32(SHUT_RDWR))
                    shutdown(pair.upstream, Int32(SHUT_RDWR))
                    finish(pair)
                    return
                case .dropAnswer?:
                    pair.lock.withLock { pair.dropAnswer = true }
                case nil:
                    break
                }
            }
            guard writeAll(pair.upstream, Array(buffer[..<count])) else { break }
        }
        shutdown(pair.upstream, Int32(SHUT_WR))
        finish(pair)
    }

    private func upstreamToClient(_ pair: Pair) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(pair.upstream, &buffer, buffer.count)
            guard count > 0 else { break }
            let drop = pair.lock.withLock {
                pair.awaitingRequest = true
                return pair.dropAnswer
            }
            if drop {
                // The service acted on the request; its answer never reaches the client.
                shutdown(pair.client, Int32(SHUT_RDWR))
                shutdown(pair.upstream, Int32(SHUT_RDWR))
                break
            }
            guard writeAll(pair.client, Array(buffer[..<count])) else { break }
        }
        shutdown(pair.client, Int32(SHUT_RDWR))
        finish(pair)
    }

    /// The second side to finish closes both sockets.
    private func finish(_ pair: Pair) {
        let last = pair.lock.withLock {
            pair.finished += 1
            return pair.finished == 2
        }
        guard last else { return }
        lock.withLock {
            sockets.remove(pair.client)
            sockets.remove(pair.upstream)
        }
        Glibc.close(pair.client)
        Glibc.close(pair.upstream)
    }

    @discardableResult
    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
