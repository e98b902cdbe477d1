/// What a connection is doing and when it stops waiting, as a value. It is told what happened (a
/// read, a parsed head or body, a whole request, a response queued or written, the peer's end, a
/// drain, time passing), with the time it happened, and answers with what to do (read or not,
/// write, close, answer with an error, be woken at a deadline). It does no I/O and reads no clock:
/// `Connection` does both and drives it; the tests drive it with times of their own.
///
/// Times are nanoseconds of the event loop's clock (`DispatchTime` uptime).
struct ConnectionStateMachine {
    enum Phase: Equatable {
        /// Nothing of a request has arrived: the connection's first (the header timeout runs), or
        /// the next after a response (the keep-alive idle timeout runs).
        case idle
        /// Part of a request head has arrived. The header timeout runs from its first byte and is
        /// never extended, so a client trickling bytes cannot hold the connection.
        case head(started: UInt64)
        /// The head is complete and the body arriving: `received` bytes of the `limit` its route
        /// takes, since `started` (when the head was read). Each read pushes the body idle
        /// timeout out, and past a grace the body must keep a minimum average rate.
        case body(started: UInt64, received: Int, limit: Int)
        /// The request is whole and being handled, with no deadline; input waits behind it.
        case handling
        /// Its response is queued; once written, the connection closes or takes the next request.
        case responding(thenClose: Bool)
        /// Its response streams for as long as the connection lasts: nothing more is taken from
        /// the peer, whose input is read only to learn that it left.
        case streaming
        /// An error response is queued, after which the connection closes: nothing that follows
        /// on it can be trusted, so nothing more is read.
        case failing
        /// The last response is written and the sending side shut (the peer has read to its
        /// end): what the peer still sends (the rest of a refused body, requests pipelined
        /// behind) is read and dropped until it closes or `lingerTimeout` passes. Closing with
        /// unread input would reset the connection, and a reset can destroy the response before
        /// the peer reads it, or fail the send of a client that reads only once its body is out
        /// (RFC 9112, section 9.6).
        case lingering
        case closed
    }

    /// Whether the socket's input is read.
    private enum Input: Equatable {
        case open
        /// The pipelined bytes buffered behind the request being handled reached
        /// `pipelineBufferLimit`: the rest stays in the socket until it is answered.
        case paused
        /// The peer closed its side, and everything it sent was read.
        case ended
    }

    /// Pipelined bytes buffered while a request is handled before reading pauses.
    static let pipelineBufferLimit = 64 * 1024

    private let limits: ServerLimits
    private(set) var phase = Phase.idle
    private var input = Input.open
    /// The loop reported that the peer closed its side: reads go on through to its end, as no
    /// further readiness will be reported.
    private(set) var peerHungUp = false
    private var draining = false
    /// Output waits for the peer to read it: the loop watches the socket for writability.
    private var isWriteBlocked = false
    private var servedAny = false
    /// When the current phase expires (nil: it does not).
    private var deadline: UInt64?
    /// When the loop next calls `deadlineReached` (`.max`: never). It moves only earlier, so a
    /// deadline pushed out (every request does) costs nothing until the old one is reached.
    private(set) var deadlineDue: UInt64 = .max

    init(limits: ServerLimits) {
        self.limits = limits
    }

    var isClosed: Bool { phase == .closed }

    /// No request is being handled: the parser's next events are taken.
    var isTakingRequests: Bool {
        switch phase {
        case .idle, .head, .body: true
        case .handling, .responding, .streaming, .failing, .lingering, .closed: false
        }
    }

    /// The peer's input has ended: it sends nothing more.
    var inputHasEnded: Bool { input == .ended }

    /// Input is read from the socket.
    var isReading: Bool { input == .open && phase != .failing && phase != .closed }

    // MARK: - Input

    /// The loop watches the socket now: a new connection has as long to send its first request
    /// head as any other.
    mutating func started(now: UInt64) {
        setDeadline(now + limits.headerTimeout.nanoseconds)
    }

    /// The socket has input, or the peer hung up (its end waiting behind any data): whether to
    /// read it now.
    mutating func readable(hangUp: Bool) -> Bool {
        // Edge-triggered: a hang-up reported with data raises no second edge, so remember it
        // (even while reading is paused) and read through to the end.
        if hangUp { peerHungUp = true }
        return isReading
    }

    /// Bytes were read: those of a body push its idle deadline out. (The time is asked for only
    /// then: most reads are of requests without a body.)
    mutating func bytesRead(now: @autoclosure () -> UInt64) {
        if case .body = phase {
            setDeadline(now() + limits.bodyIdleTimeout.nanoseconds)
            watchBodyRate()
        }
    }

    /// A read found the end of the peer's input: nothing more is read.
    mutating func inputEnded() {
        input = .ended
    }

    enum HeadAction {
        case readBody
        /// Send `100 Continue`, then read the body.
        case sendContinue
        /// Answer with this error, then close.
        case fail(HTTPError)
    }

    /// A request head was parsed; its route takes bodies of `bodyLimit` bytes at most.
    mutating func headReceived(_ head: RequestHead, bodyLimit: Int, now: UInt64) -> HeadAction {
        phase = .body(started: now, received: 0, limit: bodyLimit)
        // Without a body the request's end follows at once.
        if head.framing == .none { return .readBody }
        if case .length(let length) = head.framing, length > bodyLimit { return .fail(fail(.bodyTooLarge(bodyLimit))) }
        // The body clock starts with the head, so a client that sends a head and then stalls is
        // closed after the body idle timeout, not a longer one.
        setDeadline(now + limits.bodyIdleTimeout.nanoseconds)
        watchBodyRate()
        return head.expectsContinue ? .sendContinue : .readBody
    }

    enum BodyAction {
        case readBody
        /// Answer with this error, then close.
        case fail(HTTPError)
    }

    /// `count` more body bytes were parsed.
    mutating func bodyReceived(count: Int, now: UInt64) -> BodyAction {
        guard case .body(let started, let received, let limit) = phase else { return .readBody }
        let total = received + count
        if total > limit { return .fail(fail(.bodyTooLarge(limit))) }
        if isTooSlow(received: total, since: started, now: now) { return .fail(fail(.bodyTooSlow)) }
        phase = .body(started: started, received: total, limit: limit)
        return .readBody
    }

    /// The request is whole: it is handled now, with no deadline of the connection's.
    mutating func requestReceived() {
        phase = .handling
        deadline = nil
    }

    /// The parser refused the input: the error to answer with before closing.
    mutating func parseFailed(_ error: HTTPParseError) -> HTTPError {
        fail(HTTPError(error))
    }

    enum InputAction {
        case none
        /// Reading resumes: read what arrived while it was paused (its edge was raised then).
        case resumeReading
        case close
    }

    /// The parser has no event to give (it needs more bytes, or a request is being handled).
    /// `betweenRequests`: it holds nothing of a next request; `bufferedBytes`: what it holds.
    mutating func inputProcessed(betweenRequests: Bool, bufferedBytes: Int, now: UInt64) -> InputAction {
        // A lingering connection reads on whatever the parser holds: nothing more is parsed.
        guard phase != .closed && phase != .lingering else { return .none }
        if isTakingRequests {
            // The peer sent all it will; what is left is an incomplete request or nothing.
            if input == .ended { return .close }
            if draining && betweenRequests { return .close }
            if betweenRequests {
                phase = .idle
                let timeout = servedAny ? limits.keepAliveIdleTimeout : limits.headerTimeout
                setDeadline(now + timeout.nanoseconds)
            } else if phase == .idle {
                phase = .head(started: now)
                setDeadline(now + limits.headerTimeout.nanoseconds)
            }
        }
        if !isTakingRequests && bufferedBytes >= Self.pipelineBufferLimit {
            if input == .open { input = .paused }
        } else if input == .paused {
            input = .open
            return .resumeReading
        }
        return .none
    }

    // MARK: - Output

    /// The handler's response is ready: whether the connection stays open after it (the client
    /// asked for that, and neither a drain nor the end of its input says otherwise).
    mutating func responseReady(keepAliveRequested: Bool) -> Bool {
        let close = !keepAliveRequested || draining || input == .ended
        servedAny = true
        phase = .responding(thenClose: close)
        return !close
    }

    /// The response's head went out and its body streams on (`Response.stream`).
    mutating func streamStarted() {
        phase = .streaming
    }

    /// Not all the output could be written: the peer has the write timeout to read the rest.
    /// Whether the loop is to start watching for writability.
    mutating func writeBlocked(now: UInt64) -> Bool {
        setDeadline(now + limits.writeTimeout.nanoseconds)
        defer { isWriteBlocked = true }
        return !isWriteBlocked
    }

    /// What follows a response written to its end.
    enum AfterWrite: Equatable {
        /// The connection stays as it is (takes the next request, or streams on).
        case carryOn
        case close
        /// Shut the sending side and read what the peer still sends, dropping it, until it
        /// closes or the linger timeout passes (`lingering`).
        case linger
    }

    /// Everything queued is written: whether the loop is to stop watching for writability, and
    /// what follows (after an error, or a response that ends the connection, the connection
    /// ends: lingering while the peer may still be sending, at once when it sent all it will or
    /// the server is shutting down).
    /// (The time is asked for only then: a keep-alive response, nearly every one, needs none.)
    mutating func writeCompleted(now: @autoclosure () -> UInt64) -> (stopWatchingWritable: Bool, then: AfterWrite) {
        let stopWatching = isWriteBlocked
        isWriteBlocked = false
        switch phase {
        case .responding(let thenClose):
            if !thenClose {
                phase = .idle
                return (stopWatching, .carryOn)
            }
            return (stopWatching, end(now: now()))
        case .failing:
            return (stopWatching, end(now: now()))
        case .idle, .head, .body, .handling, .streaming, .lingering, .closed:
            return (stopWatching, .carryOn)
        }
    }

    /// The last response is out: linger while the peer may still send.
    private mutating func end(now: UInt64) -> AfterWrite {
        guard input != .ended && !draining && limits.lingerTimeout > .zero else { return .close }
        phase = .lingering
        input = .open
        setDeadline(now + limits.lingerTimeout.nanoseconds)
        return .linger
    }

    /// Whether a lingering connection has heard the peer's end, and so is to be closed now.
    var lingerIsOver: Bool { phase == .lingering && input == .ended }

    // MARK: - Shutdown

    /// A graceful shutdown: whether to close now (nothing of a request has arrived); otherwise
    /// the request in progress is answered with `Connection: close`.
    mutating func drainRequested() -> Bool {
        guard phase != .closed else { return false }
        draining = true
        return phase == .idle || phase == .streaming || phase == .lingering
    }

    /// Whether the connection was open, and so is to be closed now.
    mutating func close() -> Bool {
        guard phase != .closed else { return false }
        phase = .closed
        deadline = nil
        deadlineDue = .max
        return true
    }

    // MARK: - Time

    enum TimeoutAction {
        case none
        /// Read what is waiting, then ask `timePassed`: on a loaded machine the deadline can be
        /// checked before bytes that arrived in time, and the client must not be called late.
        case readFirst
        case close
        /// Answer with this error, then close.
        case fail(HTTPError)
    }

    /// The loop reached `deadlineDue`.
    mutating func deadlineReached(now: UInt64) -> TimeoutAction {
        deadlineDue = .max
        guard let deadline, phase != .closed else { return .none }
        if (now >= deadline || now >= bodyRateDue) && isReading && isTakingRequests { return .readFirst }
        return timePassed(now: now)
    }

    /// Whether the current phase has run out of time at `now`, and what follows if so.
    mutating func timePassed(now: UInt64) -> TimeoutAction {
        guard let deadline, phase != .closed else { return .none }
        // A body that stalled below the minimum rate once its grace passed: waiting for the idle
        // timeout would let a client hold the connection for that long after each byte.
        if case .body(let started, let received, _) = phase, isTooSlow(received: received, since: started, now: now) {
            self.deadline = nil
            return .fail(fail(.bodyTooSlow))
        }
        if now < deadline {
            setDeadline(deadline)
            watchBodyRate()
            return .none
        }
        self.deadline = nil
        // The peer stopped reading its response.
        if isWriteBlocked { return .close }
        switch phase {
        case .idle:
            // An idle keep-alive connection, or one that never sent anything.
            return .close
        case .head, .body:
            return .fail(fail(.requestTimeout))
        case .lingering:
            // The peer had its time to read the response; what it sends now may meet a reset.
            return .close
        case .handling, .responding, .streaming, .failing, .closed:
            return .none
        }
    }

    // MARK: - Helpers

    private mutating func setDeadline(_ value: UInt64) {
        deadline = value
        deadlineDue = min(deadlineDue, value)
    }

    /// Moves to `failing`, where `error` is answered before the connection closes.
    private mutating func fail(_ error: HTTPError) -> HTTPError {
        phase = .failing
        return error
    }

    /// When the body being read falls below the minimum average rate if nothing more arrives
    /// (`.max` outside a body, or with no minimum): a millisecond past the moment, so that
    /// `isTooSlow` finds it so then.
    private var bodyRateDue: UInt64 {
        guard case .body(let started, let received, _) = phase, limits.bodyMinimumRate > 0 else { return .max }
        let due = max(Double(limits.bodyRateGrace.nanoseconds), Double(received) / Double(limits.bodyMinimumRate) * 1e9) + 1e6
        return due < Double(UInt64.max - started) ? started + UInt64(due) : .max
    }

    /// Wakes the loop when the body falls below the minimum rate, should nothing more arrive: the
    /// rate is checked then too, not only when bytes come.
    private mutating func watchBodyRate() {
        deadlineDue = min(deadlineDue, bodyRateDue)
    }

    /// Whether a body has fallen below the minimum average rate, once its grace has passed.
    private func isTooSlow(received: Int, since started: UInt64, now: UInt64) -> Bool {
        let elapsed = now &- started
        guard elapsed > limits.bodyRateGrace.nanoseconds else { return false }
        return Double(received) < Double(limits.bodyMinimumRate) * Double(elapsed) / 1e9
    }
}

extension Duration {
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
