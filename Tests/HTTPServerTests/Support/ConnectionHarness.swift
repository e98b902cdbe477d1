@testable import HTTPServer

/// A `ConnectionStateMachine` driven as `Connection` drives it, on a clock the test moves by hand:
/// the connection's timeouts are tested without sockets and without sleeping. Each method is an
/// event of the connection's, and answers with what the machine said to do.
final class ConnectionHarness {
    private(set) var machine: ConnectionStateMachine
    /// The event loop's clock (uptime nanoseconds), which is never zero.
    private(set) var now: UInt64 = 1_000_000_000

    /// A connection just accepted: watched, with nothing read yet.
    init(limits: ServerLimits = ServerLimits()) {
        machine = ConnectionStateMachine(limits: limits)
        machine.started(now: now)
        _ = machine.inputProcessed(betweenRequests: true, bufferedBytes: 0, now: now)
    }

    var phase: ConnectionStateMachine.Phase { machine.phase }
    var isReading: Bool { machine.isReading }
    var deadlineDue: UInt64 { machine.deadlineDue }

    /// Some bytes of a request head arrive, not all of it.
    func receivePartialHead() -> String {
        machine.bytesRead(now: now)
        return inputProcessed(betweenRequests: false)
    }

    /// A whole head arrives.
    func receiveHead(_ head: RequestHead, bodyLimit: Int = ServerLimits().maxBodyBytes) -> String {
        machine.bytesRead(now: now)
        return summary(machine.headReceived(head, bodyLimit: bodyLimit, now: now))
    }

    /// `count` bytes of the body arrive.
    func receiveBody(_ count: Int) -> String {
        machine.bytesRead(now: now)
        return summary(machine.bodyReceived(count: count, now: now))
    }

    /// The parser has no more events for now.
    func inputProcessed(betweenRequests: Bool, bufferedBytes: Int = 0) -> String {
        summary(machine.inputProcessed(betweenRequests: betweenRequests, bufferedBytes: bufferedBytes, now: now))
    }

    /// The request's end arrives: it is handled now.
    func handle() { machine.requestReceived() }

    /// The handler's response is queued: whether the connection stays open after it.
    func respond(keepAliveRequested: Bool = true) -> Bool { machine.responseReady(keepAliveRequested: keepAliveRequested) }

    /// The socket takes no more output: whether the loop is to start watching for writability.
    func writeBlocks() -> Bool { machine.writeBlocked(now: now) }

    /// The response's head is out and its body streams on.
    func streamStarts() { machine.streamStarted() }

    /// All output is written: what follows (`carryOn`, `close` or `linger`).
    func written() -> String { summary(machine.writeCompleted(now: now).then) }

    /// The request's end arrives, and it is handled, answered, and the answer written at once.
    /// Whether the connection stays open for another request.
    func answer(keepAliveRequested: Bool = true) -> Bool {
        handle()
        _ = respond(keepAliveRequested: keepAliveRequested)
        if written() != "carryOn" {
            _ = machine.close()
            return false
        }
        return inputProcessed(betweenRequests: true) == "none"
    }

    func readable() -> Bool { machine.readable(hangUp: false) }
    func peerEnds() { machine.inputEnded() }
    func drain() -> Bool { machine.drainRequested() }

    /// Moves the clock on by `duration` without waking the machine: the loop is late.
    func advance(_ duration: Duration) { now += duration.nanoseconds }

    /// The loop wakes the machine now.
    func deadlineReached() -> String { summary(machine.deadlineReached(now: now)) }

    /// After the read `deadlineReached` asked for.
    func timePassed() -> String { summary(machine.timePassed(now: now)) }

    /// Moves the clock on by `duration`, waking the machine whenever its `deadlineDue` comes, as
    /// the loop does (a read it asks for first finds nothing). What the wake-ups said to do, in
    /// order, `none` left out; a close is carried out.
    func wait(_ duration: Duration) -> [String] {
        let end = now + duration.nanoseconds
        var actions: [String] = []
        while machine.deadlineDue <= end {
            now = max(now, machine.deadlineDue)
            var action = machine.deadlineReached(now: now)
            if case .readFirst = action { action = machine.timePassed(now: now) }
            switch action {
            case .none, .readFirst: continue
            case .close: _ = machine.close()
            case .fail: break
            }
            actions.append(summary(action))
        }
        now = end
        return actions
    }
}

/// A state machine's action as the tests compare it: its case (`close`), or for an error its
/// status and code (`408 request_timeout`).
func summary(_ action: Any) -> String {
    if let payload = Mirror(reflecting: action).children.first?.value as? HTTPError {
        return "\(payload.status.code) \(payload.code)"
    }
    return String(describing: action)
}

extension RequestHead {
    /// A request with a body of `length` bytes.
    static func post(length: Int, expectsContinue: Bool = false) -> RequestHead {
        RequestHead(method: "POST", target: "/echo", headers: ["host": "x"], framing: .length(length), expectsContinue: expectsContinue)
    }

    static let get = RequestHead(method: "GET", target: "/hello", headers: ["host": "x"])
}
