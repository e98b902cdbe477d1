import Locking

/// The body of a streamed response, for whoever produces it on any thread: bytes sent are queued
/// on the connection's event loop and written as the reader takes them. The connection closes
/// when the producer finishes, the reader leaves, the reader falls `maxStreamBacklogBytes`
/// behind, or the server shuts down; `onClose` tells the producer, once.
public final class ResponseStream: Sendable {
    private struct State {
        /// Nil once closed.
        var connection: Connection?
        var onClose: [@Sendable () -> Void] = []
        /// Bytes sent and not yet queued on the connection, and bytes queued and not yet written.
        var inFlight = 0
        var queued = 0
    }

    private let loop: EventLoop
    private let state: Locked<State>

    init(connection: Connection) {
        loop = connection.loop
        state = Locked(State(connection: connection))
    }

    public var isClosed: Bool { state.withLock { $0.connection == nil } }

    /// Bytes sent that the reader has not taken yet: a producer with much to send (a backlog
    /// read from storage) waits for this to fall before sending more.
    public var backlog: Int { state.withLock { $0.inFlight + $0.queued } }

    /// Queues `bytes` for the reader (nothing once closed).
    public func send(_ bytes: [UInt8]) {
        guard let connection = state.withLock({ state -> Connection? in
            if state.connection != nil { state.inFlight += bytes.count }
            return state.connection
        }) else { return }
        loop.execute { connection.streamOutput(bytes) }
    }

    /// The connection took `count` bytes sent (called on its loop, before it queues them).
    func arrived(_ count: Int) {
        state.withLock { $0.inFlight -= count }
    }

    /// What the connection has queued and not yet written (called on its loop).
    func queuedNow(_ count: Int) {
        state.withLock { $0.queued = count }
    }

    /// Ends the response and closes the connection.
    public func finish() {
        guard let connection = state.withLock({ $0.connection }) else { return }
        loop.execute { connection.close() }
    }

    /// Calls `body` once the connection has closed (at once, if it has).
    public func onClose(_ body: @escaping @Sendable () -> Void) {
        let closed = state.withLock { state -> Bool in
            guard state.connection != nil else { return true }
            state.onClose.append(body)
            return false
        }
        if closed { body() }
    }

    /// The connection closed (called on its loop).
    func connectionClosed() {
        let callbacks = state.withLock { state -> [@Sendable () -> Void] in
            state.connection = nil
            defer { state.onClose = [] }
            return state.onClose
        }
        for callback in callbacks { callback() }
    }
}
