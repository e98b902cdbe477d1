import Dispatch
import Glibc

/// One client connection: the socket's I/O and the parser, driving a `ConnectionStateMachine`,
/// which decides when to read, answer, close or time out (the handlers are run in
/// Connection+Handling.swift). Every piece of state is touched only on its event loop's thread,
/// where readiness events, deadlines and handed-over work arrive; that confinement is why the
/// class may be Sendable.
///
/// Requests are handled one at a time: while one is being answered the parser keeps the bytes of
/// pipelined requests behind it (reading pauses once enough are buffered), so responses go out
/// in request order. The descriptor is closed only after the loop has stopped watching it.
final class Connection: EventLoop.Handler, @unchecked Sendable {
    /// A request being read or handled, with what answering and logging it take.
    struct PendingRequest {
        var head: RequestHead
        var body: [UInt8] = []
        var id: String
        /// When its head was parsed, in nanoseconds of the loop's clock (`Connection.now()`).
        var started: UInt64
        /// Where routing sent it, decided when the head arrived.
        var match: Router.Match = .notFound
        /// The template of the route it matched (nil: none), for the access log and metrics.
        var route: String?
    }

    let loop: EventLoop
    private let fd: Int32
    let context: ServerContext
    private var parser: HTTPRequestParser
    private var token: UInt64 = 0
    private var state: ConnectionStateMachine {
        didSet {
            // The loop wakes only for deadlines it was told of: one set earlier than it knew, or
            // set again after the last was reached.
            if state.deadlineDue != oldValue.deadlineDue && state.deadlineDue != .max {
                loop.deadlineMoved(to: state.deadlineDue)
            }
        }
    }

    private var current: PendingRequest?
    private var output: [UInt8] = []
    /// The most room the output buffer keeps between responses: an ordinary answer's (a sent
    /// message's is about 1 KiB), not a large one's, which idle connections would hold on to.
    static let keptOutputCapacity = 4 * 1024
    private var outputOffset = 0
    /// The body of a streamed response, once one has started: then nothing more is read.
    private var stream: ResponseStream?
    /// The client of the request an async handler is running for (one at a time): marked gone
    /// when the connection's input ends or it closes, so work that checks (a dry run's scan)
    /// stops instead of running on for nobody.
    var handledClient: ClientPresence?

    var closed: Bool { state.isClosed }
    /// The peer has sent all it will (its end of the connection closed, or only its sending side).
    var inputHasEnded: Bool { state.inputHasEnded }
    var deadlineDue: UInt64 { state.deadlineDue }

    /// Most bytes read in one wake-up, so one fast client cannot starve the others on its thread.
    private static let readBudget = 256 * 1024

    init(fd: Int32, context: ServerContext, loop: EventLoop) {
        self.fd = fd
        self.context = context
        self.loop = loop
        var parserLimits = context.limits
        parserLimits.maxBodyBytes = max(parserLimits.maxBodyBytes, context.router.largestBodyLimit ?? 0)
        self.parser = HTTPRequestParser(limits: parserLimits)
        self.state = ConnectionStateMachine(limits: context.limits)
    }

    /// Starts watching the socket. Call on the loop's thread.
    func start() {
        do {
            token = try loop.register(fd, handler: self)
        } catch {
            context.events.failure("cannot watch a new connection: \(error)", nil)
            // Closed in the books too: a shutdown that lists this connection must not close the
            // number again, which may by then be another client's socket or a store file.
            close()
            return
        }
        state.started(now: Self.now())
        // Bytes that arrived before registration raise no edge: look for them now.
        readable(hangUp: false)
    }

    // MARK: - Reading

    func readable(hangUp: Bool = false) {
        assert(loop.isCurrent, "a connection reads on its loop's thread")
        guard state.readable(hangUp: hangUp) else { return }
        if state.phase == .lingering {
            dropLingeringInput()
            return
        }
        if stream != nil {
            // While a response streams the peer has nothing more to say: what it sends is
            // dropped, and its end closes the connection.
            if readAvailable(now: Self.now(), discarding: true) >= 0 && !state.isReading { close() }
            return
        }
        let now = Self.now()
        guard readAvailable(now: now) >= 0 else { return }
        processInput(now: now)
    }

    /// Reads what the socket has into the parser (or drops it, `discarding`): the byte count, or
    /// -1 when the connection failed and was closed. `now` is when the reading began.
    private func readAvailable(now: UInt64, discarding: Bool = false) -> Int {
        var total = 0
        let buffer = loop.readBuffer
        reading: while total < Self.readBudget {
            switch Socket.read(fd, into: buffer) {
            case .bytes(let count):
                if !discarding { parser.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
                total += count
                // A short read drained the socket (a later arrival raises a new edge), unless the
                // peer hung up: then its end is still to be read.
                if count < buffer.count && !state.peerHungUp { break reading }
                if total >= Self.readBudget {
                    // Not drained, and no new edge will come for what is left: read on later,
                    // after the other connections of this loop have had their turn.
                    loop.execute { self.readable(hangUp: false) }
                }
            case .wouldBlock:
                break reading
            case .closed:
                state.inputEnded()
                handledClient?.markGone()
                break reading
            case .failed:
                close()
                return -1
            }
        }
        if total > 0 { state.bytesRead(now: now) }
        return total
    }

    /// Turns buffered bytes into requests until one is being handled or more bytes are needed.
    /// `now` is read once a wake-up and again after each request answered: the clock was read
    /// six times a request, for times that differ by microseconds.
    private func processInput(now: UInt64) {
        var now = now
        while state.isTakingRequests {
            let event: HTTPParserEvent?
            do {
                event = try parser.next()
            } catch {
                failRequest(state.parseFailed(error))
                return
            }
            guard let event else { break }
            switch event {
            case .head(let head):
                let route = context.router.route(method: head.method, path: head.path)
                current = PendingRequest(head: head, id: RequestID.for(head), started: now, match: route.match,
                                         route: route.template)
                // The parser allows the largest body of any route; this route may take less.
                switch state.headReceived(head, bodyLimit: route.bodyLimit ?? context.limits.maxBodyBytes, now: now) {
                case .readBody:
                    break
                case .sendContinue:
                    queueOutput(ResponseSerializer.continueResponse)
                    if !flush() { return }
                case .fail(let error):
                    failRequest(error)
                    return
                }
            case .body(let bytes):
                // A body that arrives in one piece (most do) is taken as it is, not copied.
                if current?.body.isEmpty == true {
                    current?.body = bytes
                } else {
                    current?.body.append(contentsOf: bytes)
                }
                if case .fail(let error) = state.bodyReceived(count: bytes.count, now: now) {
                    failRequest(error)
                    return
                }
            case .end:
                if let request = current.take() {
                    state.requestReceived()
                    handle(request)
                    now = Self.now()
                }
            }
        }
        guard !state.isClosed else { return }
        switch state.inputProcessed(betweenRequests: parser.isBetweenRequests, bufferedBytes: parser.bufferedByteCount,
                                    now: now) {
        case .none:
            break
        case .resumeReading:
            loop.execute { self.readable(hangUp: false) }
        case .close:
            close()
        }
    }

    // MARK: - Responding

    /// Answers a request handled outside the input loop, then goes on with pipelined input.
    /// (Inside the loop, the loop itself goes on: no recursion however many are pipelined.)
    func finish(_ pending: PendingRequest, with response: Response) {
        assert(loop.isCurrent, "a response is finished on its connection's loop")
        handledClient = nil
        respond(to: pending, with: response)
        continueAfterResponse()
    }

    private func continueAfterResponse() {
        if state.isTakingRequests { processInput(now: Self.now()) }
    }

    func respond(to pending: PendingRequest, with response: Response) {
        assert(loop.isCurrent, "a response is written on its connection's loop")
        guard !state.isClosed else { return }
        let head = pending.head
        // A streamed response lasts as long as the connection.
        let keepAlive = state.responseReady(keepAliveRequested: head.keepAlive && response.stream == nil)
        let omitBody = ResponseSerializer.omitsBody(method: head.method, status: response.status)
        send(response, to: pending, keepAlive: keepAlive, omitBody: omitBody, loggedBytes: omitBody ? 0 : response.body.count)
    }

    /// Answers a request that could not be parsed, was too large or timed out, then closes: after
    /// a framing error nothing that follows on this connection can be trusted.
    private func failRequest(_ error: HTTPError) {
        let parsedHead = current?.head
        let pending = current ?? PendingRequest(
            head: RequestHead(method: "-", target: "-", version: .http1_1, headers: [:], framing: .none, keepAlive: false, expectsContinue: false),
            id: RequestID.make(), started: Self.now())
        current = nil
        // The head, when one was read, so the answer is in the request's language and in the
        // shape its route's clients read (a Matrix homeserver's, say).
        let response = context.render(error, head: parsedHead, requestID: pending.id)
        // The access log counts the body here even when a HEAD request leaves it out.
        send(response, to: pending, keepAlive: false, omitBody: pending.head.method == "HEAD", loggedBytes: response.body.count)
    }

    /// Queues a response, reports it to the access log, and writes what it can.
    private func send(_ response: Response, to pending: PendingRequest, keepAlive: Bool, omitBody: Bool, loggedBytes: Int) {
        let head = pending.head
        ResponseSerializer.serialize(response, requestID: pending.id, keepAlive: keepAlive, http10: head.version.minor == 0,
                                     omitBody: omitBody, dateField: loop.dateField.current(), into: &output)
        context.events.requestCompleted(AccessLogEntry(head, requestID: pending.id, route: pending.route, status: response.status,
                                                       bytes: loggedBytes, duration: Self.elapsed(since: pending.started)))
        if let start = response.stream, !omitBody {
            state.streamStarted()
            let stream = ResponseStream(connection: self)
            self.stream = stream
            flush()
            start(stream)
            return
        }
        flush()
    }

    /// More of a streamed response's body. A reader this far behind is closed (it resumes where
    /// it left off); the stream's producer hears of it through `onClose`.
    /// (A piece is taken whole while the reader keeps up, however large: the limit is on what
    /// waits before it.)
    func streamOutput(_ bytes: [UInt8]) {
        guard let stream, !state.isClosed else { return }
        stream.arrived(bytes.count)
        if output.count - outputOffset > context.limits.maxStreamBacklogBytes {
            close()
            return
        }
        queueOutput(bytes)
        flush()
    }


    // MARK: - Writing

    private func queueOutput(_ bytes: [UInt8]) {
        if output.isEmpty {
            output = bytes
        } else {
            output.append(contentsOf: bytes)
        }
    }

    /// Writes what it can. True when everything queued is written; false when the rest waits for
    /// the socket to drain (or the connection closed).
    @discardableResult
    private func flush() -> Bool {
        while outputOffset < output.count {
            let result = output.withUnsafeBytes { Socket.send(fd, UnsafeRawBufferPointer(rebasing: $0[outputOffset...])) }
            switch result {
            case .bytes(let count):
                outputOffset += count
            case .wouldBlock:
                if state.writeBlocked(now: Self.now()) { loop.watchWritable(fd, token: token, true) }
                stream?.queuedNow(output.count - outputOffset)
                return false
            case .closed, .failed:
                close()
                return false
            }
        }
        // The room of an ordinary response is kept for the next: allocating it again cost every
        // request a malloc and a free. A large one's is given back.
        output.removeAll(keepingCapacity: output.capacity <= Self.keptOutputCapacity)
        outputOffset = 0
        stream?.queuedNow(0)
        let written = state.writeCompleted(now: Self.now())
        if written.stopWatchingWritable { loop.watchWritable(fd, token: token, false) }
        switch written.then {
        case .carryOn: break
        case .close: close()
        case .linger: linger()
        }
        return true
    }

    func writable() {
        if !state.isClosed && outputOffset < output.count && flush() { continueAfterResponse() }
    }

    // MARK: - Timeouts

    func deadlineReached() {
        let now = Self.now()
        var action = state.deadlineReached(now: now)
        if case .readFirst = action {
            let read = readAvailable(now: now)
            if read < 0 { return }
            if read > 0 { processInput(now: now) }
            action = state.timePassed(now: Self.now())
        }
        switch action {
        case .none, .readFirst:
            break
        case .close:
            close()
        case .fail(let error):
            failRequest(error)
        }
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    private static func elapsed(since start: UInt64) -> Duration {
        let now = now()
        return .nanoseconds(Int64(now > start ? now - start : 0))
    }

    // MARK: - Closing

    /// Graceful shutdown: close now if idle, else after the request in progress is answered.
    func drain() {
        if state.drainRequested() { close() }
    }

    /// Shuts the sending side (the peer reads the response to its end), then reads and drops what
    /// the peer still sends until it closes or the linger timeout passes.
    private func linger() {
        guard Glibc.shutdown(fd, Int32(SHUT_WR)) == 0 else {
            close()
            return
        }
        dropLingeringInput()
    }

    /// Reads what a lingering connection's peer sent, dropping it; closes once the peer has.
    private func dropLingeringInput() {
        if readAvailable(now: Self.now(), discarding: true) >= 0 && state.lingerIsOver { close() }
    }

    func close() {
        assert(loop.isCurrent, "a connection closes on its loop's thread")
        guard state.close() else { return }
        handledClient?.markGone()
        handledClient = nil
        if token != 0 { loop.deregister(fd, token: token) }
        Glibc.close(fd)
        context.connectionClosed(self)
        stream?.connectionClosed()
        stream = nil
    }
}
