import CEpoll
import Dispatch
import Glibc

/// Connections that receive I/O readiness from one epoll instance, which a single Dispatch read
/// source watches. When the source fires, the loop collects every ready connection at once and
/// runs them back to back on its serial queue. A Dispatch source per connection would cost a
/// hand-off to Dispatch's manager thread and back for every request; here that cost is paid once
/// per batch of ready connections.
///
/// Sockets are registered edge-triggered: a connection reads until the socket is drained (or
/// asks to be called again), and watches for writability only while a response is blocked.
final class EventLoop: @unchecked Sendable {
    /// What a registered socket is told.
    protocol Handler: AnyObject {
        /// `hangUp`: the peer closed its side; its EOF is waiting behind whatever data is left.
        func readable(hangUp: Bool)
        func writable()
    }

    let queue: DispatchQueue
    private let epollFD: Int32
    private var source: DispatchSourceRead?
    // Confined to `queue`. Tokens, not descriptors, key the table: an event still queued for a
    // socket that closed in the same batch finds nothing instead of a newer socket's handler.
    private var handlers: [UInt64: Handler] = [:]
    private var nextToken: UInt64 = 1
    private var readyMasks = [UInt32](repeating: 0, count: 256)
    private var readyTokens = [UInt64](repeating: 0, count: 256)

    init(label: String) throws {
        epollFD = cepoll_create()
        guard epollFD >= 0 else { throw SocketError(call: "epoll_create1", code: errno) }
        queue = DispatchQueue(label: label, qos: .userInitiated)
        let source = DispatchSource.makeReadSource(fileDescriptor: epollFD, queue: queue)
        source.setEventHandler { [unowned self] in dispatchReadyEvents() }
        let epollFD = self.epollFD
        // The epoll descriptor is closed only here, once the source can no longer fire on it.
        source.setCancelHandler { Glibc.close(epollFD) }
        self.source = source
        source.activate()
    }

    /// Watches `fd` for input. Call on `queue`. Returns the token to pass back when done.
    func register(_ fd: Int32, handler: Handler) throws -> UInt64 {
        dispatchPrecondition(condition: .onQueue(queue))
        let token = nextToken
        nextToken += 1
        guard cepoll_add(epollFD, fd, Self.inputEvents, token) == 0 else { throw SocketError(call: "epoll_ctl(ADD)", code: errno) }
        handlers[token] = handler
        return token
    }

    /// Also watches for writability (or stops doing so), while a response waits for the peer.
    func watchWritable(_ fd: Int32, token: UInt64, _ watch: Bool) {
        cepoll_modify(epollFD, fd, watch ? Self.inputEvents | cepoll_out() : Self.inputEvents, token)
    }

    /// Stops watching `fd`; the caller closes it afterwards.
    func deregister(_ fd: Int32, token: UInt64) {
        dispatchPrecondition(condition: .onQueue(queue))
        cepoll_delete(epollFD, fd)
        handlers[token] = nil
    }

    /// Stops the loop once its connections are gone.
    func stop() {
        queue.async { [self] in
            source?.cancel()
            source = nil
        }
    }

    private static let inputEvents = cepoll_in() | cepoll_rdhup() | cepoll_et()
    private static let inputReady = cepoll_in() | cepoll_rdhup() | cepoll_hup() | cepoll_err()
    private static let hangUp = cepoll_rdhup() | cepoll_hup() | cepoll_err()

    private func dispatchReadyEvents() {
        let capacity = readyMasks.count
        while true {
            let count = Int(cepoll_wait(epollFD, &readyMasks, &readyTokens, Int32(capacity), 0))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            for index in 0..<count {
                let mask = readyMasks[index]
                let token = readyTokens[index]
                if mask & Self.inputReady != 0 { handlers[token]?.readable(hangUp: mask & Self.hangUp != 0) }
                if mask & cepoll_out() != 0 { handlers[token]?.writable() }
            }
            if count < capacity { return }
        }
    }
}
