import Dispatch
import Glibc

/// One client connection. Every piece of state is touched only on its event loop's thread, where
/// readiness events, deadlines and handed-over work arrive; that confinement is why the class may
/// be Sendable.
///
/// Requests are handled one at a time: while one is being answered the parser keeps the bytes of
/// pipelined requests behind it (reading pauses once enough are buffered), so responses go out
/// in request order. The descriptor is closed only after the loop has stopped watching it.
final class Connection: EventLoop.Handler, @unchecked Sendable {
    private struct PendingRequest {
        var head: RequestHead
        var body: [UInt8] = []
        var id: String
        var started: ContinuousClock.Instant
        /// The most body bytes its route takes.
        var bodyLimit = 0
        /// Where routing sent it, decided when the head arrived.
        var match: Router.Match = .notFound
        /// The template of the route it matched (nil: none), for the access log and metrics.
        var route: String?
    }

    private enum AfterWrite {
        case nothing
        case finishRequest(close: Bool)
        case close
    }

    let loop: EventLoop
    private let fd: Int32
    private let context: ServerContext
    private var parser: HTTPRequestParser
    private var token: UInt64 = 0
    /// Input is left in the socket (the pipeline buffer is full, or the peer closed its side).
    private var readPaused = false
    /// The peer's side is closed (reported by the loop); reads go on to its EOF.
    private var peerHungUp = false
    private var watchingWritable = false

    private var current: PendingRequest?
    /// A request is being handled or its response written; input waits behind it.
    private var busy = false
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var afterWrite = AfterWrite.nothing
    private var peerClosedInput = false
    private var draining = false
    private(set) var closed = false
    private var requestsServed = 0

    // Timeouts: `deadline` is when the current phase expires (0: none). `deadlineDue` is when the
    // loop next calls `deadlineReached`; it moves only earlier, so a deadline pushed out (every
    // request does) costs nothing until the old one is reached.
    private var deadline: UInt64 = 0
    /// When the current request's body began (its head was read; 0: no body being read), and the
    /// body bytes since, for the minimum body rate.
    private var bodyStarted: UInt64 = 0
    private var bodyReceived = 0
    private(set) var deadlineDue: UInt64 = .max
    private var headStarted: UInt64 = 0

    /// Pipelined bytes buffered while a request is handled before reading pauses.
    private static let pipelineBufferLimit = 64 * 1024
    /// Most bytes read in one wake-up, so one fast client cannot starve the others on its thread.
    private static let readBudget = 256 * 1024

    init(fd: Int32, context: ServerContext, loop: EventLoop) {
        self.fd = fd
        self.context = context
        self.loop = loop
        var parserLimits = context.limits
        parserLimits.maxBodyBytes = max(parserLimits.maxBodyBytes, context.router.largestBodyLimit ?? 0)
        self.parser = HTTPRequestParser(limits: parserLimits)
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
        // A new connection has as long to send its first request head as any other.
        setDeadline(Self.now() + context.limits.headerTimeout.nanoseconds)
        // Bytes that arrived before registration raise no edge: look for them now.
        readable(hangUp: false)
    }

    // MARK: - Reading

    func readable(hangUp: Bool = false) {
        // Edge-triggered: a hang-up reported with data raises no second edge, so remember it
        // (even while reading is paused) and read through to the EOF.
        if hangUp { peerHungUp = true }
        guard !closed, !readPaused else { return }
        guard readAvailable() >= 0 else { return }
        processInput()
    }

    /// Reads what the socket has into the parser: the byte count, or -1 when the connection
    /// failed and was closed. Body bytes push the body idle deadline out.
    private func readAvailable() -> Int {
        var total = 0
        let buffer = loop.readBuffer
        reading: while total < Self.readBudget {
            let result = Socket.read(fd, into: buffer)
            if case .bytes(let count) = result {
                parser.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
            switch result {
            case .bytes(let count):
                total += count
                // A short read drained the socket (a later arrival raises a new edge), unless the
                // peer hung up: then its EOF is still to be read.
                if count < buffer.count && !peerHungUp { break reading }
                if total >= Self.readBudget {
                    // Not drained, and no new edge will come for what is left: read on later,
                    // after the other connections of this loop have had their turn.
                    loop.execute { self.readable(hangUp: false) }
                }
            case .wouldBlock:
                break reading
            case .closed:
                peerClosedInput = true
                readPaused = true
                break reading
            case .failed:
                close()
                return -1
            }
        }
        if total > 0, parser.isReadingBody {
            setDeadline(Self.now() + context.limits.bodyIdleTimeout.nanoseconds)
        }
        return total
    }

    /// Turns buffered bytes into requests until one is being handled or more bytes are needed.
    private func processInput() {
        while !busy && !closed {
            let event: HTTPParserEvent?
            do {
                event = try parser.next()
            } catch {
                failRequest(HTTPError(error))
                return
            }
            guard let event else { break }
            switch event {
            case .head(let head):
                let route = context.router.route(method: head.method, path: head.path)
                current = PendingRequest(head: head, id: Self.requestID(for: head), started: .now, match: route.match,
                                         route: route.template)
                headStarted = 0
                if head.framing != .none {
                    // The parser allows the largest body of any route; this route may take less.
                    let limit = route.bodyLimit ?? context.limits.maxBodyBytes
                    current?.bodyLimit = limit
                    if case .length(let length) = head.framing, length > limit {
                        failRequest(HTTPError(HTTPRequestParser.bodyTooLarge(limit)))
                        return
                    }
                    // The body clock starts with the head, so a client that sends a head and
                    // then stalls is closed after the body idle timeout, not a longer one.
                    bodyStarted = Self.now()
                    bodyReceived = 0
                    setDeadline(bodyStarted + context.limits.bodyIdleTimeout.nanoseconds)
                }
                if head.expectsContinue {
                    queueOutput(ResponseSerializer.continueResponse)
                    if !flush() { return }
                }
            case .body(let bytes):
                // A body that arrives in one piece (most do) is taken as it is, not copied.
                if current?.body.isEmpty == true {
                    current?.body = bytes
                } else {
                    current?.body.append(contentsOf: bytes)
                }
                // Read in place: binding `current` to a constant would copy the whole request.
                if let limit = current?.bodyLimit, let count = current?.body.count, count > limit {
                    failRequest(HTTPError(HTTPRequestParser.bodyTooLarge(limit)))
                    return
                }
                bodyReceived += bytes.count
                if isBodyTooSlow() {
                    failRequest(HTTPError(.requestTimeout, code: "body_too_slow",
                                          detail: "The request body arrived slower than the server accepts."))
                    return
                }
            case .end:
                bodyStarted = 0
                if let request = current.take() {
                    busy = true
                    handle(request)
                }
            }
        }
        guard !closed else { return }
        if !busy {
            if peerClosedInput {
                // The peer sent all it will; what is left is an incomplete request or nothing.
                close()
                return
            }
            if draining && parser.isBetweenRequests {
                close()
                return
            }
            updateIdleDeadline()
        }
        if busy && parser.bufferedByteCount >= Self.pipelineBufferLimit {
            readPaused = true
        } else if readPaused && !peerClosedInput {
            // Edge-triggered: what arrived while paused raised its edge already, so read it now.
            readPaused = false
            loop.execute { self.readable(hangUp: false) }
        }
    }

    private func updateIdleDeadline() {
        if parser.isBetweenRequests {
            let timeout = requestsServed == 0 ? context.limits.headerTimeout : context.limits.keepAliveIdleTimeout
            setDeadline(Self.now() + timeout.nanoseconds)
            headStarted = 0
        } else if !parser.isReadingBody && headStarted == 0 {
            // The header timeout runs from the first byte of the head and is never extended,
            // so a client trickling bytes cannot hold the connection.
            headStarted = Self.now()
            setDeadline(headStarted + context.limits.headerTimeout.nanoseconds)
        }
    }

    // MARK: - Handling

    private func handle(_ pending: PendingRequest) {
        deadline = 0
        var request = Request(head: pending.head, body: pending.body, id: pending.id, maxJSONDepth: context.limits.maxJSONDepth)
        switch pending.match {
        case .found(let handler, let parameters):
            request.parameters = parameters
            run(handler, on: request, answering: pending)
        case .notFound:
            respond(to: pending, with: context.render(HTTPError.notFound(), request: request))
        case .methodNotAllowed(let allowed):
            respond(to: pending, with: context.render(HTTPError.methodNotAllowed(request.method, allowed: allowed), request: request))
        }
    }

    private func run(_ handler: Handler, on request: Request, answering pending: PendingRequest) {
        let context = self.context
        switch handler {
        case .immediate(let body):
            respond(to: pending, with: context.response(Result { try body(request) }, to: request))
        case .async(let body):
            Task {
                let response = context.response(await Result { try await body(request) }, to: request)
                self.loop.execute { self.finish(pending, with: response) }
            }
        case .callback(let body):
            let finish: @Sendable (_ build: () throws -> Response) -> Void = { build in
                self.finish(pending, with: context.response(Result(catching: build), to: request))
            }
            // The request and its state are captured once, here, by `finish`: the responder
            // is called on another thread (for a send, the store's writer, which every send
            // waits for), where it should only hand the builder over.
            let loop = self.loop
            let responder = Responder { build in loop.execute { finish(build) } }
            do {
                try body(request, responder)
            } catch {
                responder.fail(error)
            }
        }
    }

    /// Answers a request handled outside the input loop, then goes on with pipelined input.
    private func finish(_ pending: PendingRequest, with response: Response) {
        respond(to: pending, with: response)
        continueAfterResponse()
    }

    private func respond(to pending: PendingRequest, with response: Response) {
        guard !closed else { return }
        let head = pending.head
        let close = !head.keepAlive || draining || peerClosedInput
        requestsServed += 1
        afterWrite = .finishRequest(close: close)
        let omitBody = ResponseSerializer.omitsBody(method: head.method, status: response.status)
        send(response, to: pending, keepAlive: !close, omitBody: omitBody, loggedBytes: omitBody ? 0 : response.body.count)
    }

    /// Answers a request that could not be parsed or timed out, then closes: after a framing
    /// error nothing that follows on this connection can be trusted.
    private func failRequest(_ error: HTTPError) {
        let pending = current ?? PendingRequest(
            head: RequestHead(method: "-", target: "-", version: .http1_1, headers: [:], framing: .none, keepAlive: false, expectsContinue: false),
            id: RequestID.make(), started: .now)
        current = nil
        busy = true
        readPaused = true
        afterWrite = .close
        let response = context.render(error, requestID: pending.id)
        // The access log counts the body here even when a HEAD request leaves it out.
        send(response, to: pending, keepAlive: false, omitBody: pending.head.method == "HEAD", loggedBytes: response.body.count)
    }

    /// Queues a response, reports it to the access log, and writes what it can.
    private func send(_ response: Response, to pending: PendingRequest, keepAlive: Bool, omitBody: Bool, loggedBytes: Int) {
        let head = pending.head
        queueOutput(ResponseSerializer.serialize(response, requestID: pending.id, keepAlive: keepAlive,
                                                 http10: head.version.minor == 0, omitBody: omitBody))
        context.events.requestCompleted(AccessLogEntry(head, requestID: pending.id, route: pending.route, status: response.status,
                                                       bytes: loggedBytes, started: pending.started))
        flush()
    }

    private static func requestID(for head: RequestHead) -> String {
        if let incoming = head.headers["x-request-id"], RequestID.isValid(incoming) { return incoming }
        return RequestID.make()
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
                waitForWritable()
                return false
            case .closed, .failed:
                close()
                return false
            }
        }
        output.removeAll(keepingCapacity: false)
        outputOffset = 0
        if watchingWritable {
            watchingWritable = false
            loop.watchWritable(fd, token: token, false)
        }
        let action = afterWrite
        afterWrite = .nothing
        switch action {
        case .nothing:
            break
        case .close:
            close()
        case .finishRequest(let close):
            busy = false
            if close { self.close() }
        }
        return true
    }

    /// After a response finished writing outside the input loop, goes on with pipelined input.
    /// (Inside the loop, the loop itself goes on: no recursion however many are pipelined.)
    private func continueAfterResponse() {
        if !busy && !closed { processInput() }
    }

    private func waitForWritable() {
        setDeadline(Self.now() + context.limits.writeTimeout.nanoseconds)
        if !watchingWritable {
            watchingWritable = true
            loop.watchWritable(fd, token: token, true)
        }
    }

    func writable() {
        if !closed && outputOffset < output.count && flush() { continueAfterResponse() }
    }

    // MARK: - Timeouts

    private func setDeadline(_ value: UInt64) {
        deadline = value
        if value < deadlineDue {
            deadlineDue = value
            loop.deadlineMoved(to: value)
        }
    }

    func deadlineReached() {
        deadlineDue = .max
        guard !closed, deadline != 0 else { return }
        if Self.now() >= deadline, !readPaused, !busy {
            // On a loaded machine the deadline can be checked before bytes that arrived in time:
            // read what is waiting before calling the client late.
            let read = readAvailable()
            if read < 0 { return }
            if read > 0 { processInput() }
            guard !closed, deadline != 0 else { return }
        }
        let now = Self.now()
        if now < deadline {
            setDeadline(deadline)
            return
        }
        deadline = 0
        if outputOffset < output.count {
            close()  // The peer stopped reading its response.
        } else if busy {
            return
        } else if parser.isBetweenRequests {
            close()  // Idle keep-alive, or a connection that never sent anything.
        } else {
            failRequest(HTTPError(.requestTimeout, code: "request_timeout", detail: "The request was not received in time."))
        }
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Whether the body being read has fallen below the minimum average rate, after the grace.
    private func isBodyTooSlow() -> Bool {
        guard bodyStarted != 0 else { return false }
        let elapsed = Self.now() &- bodyStarted
        let grace = context.limits.bodyRateGrace.nanoseconds
        guard elapsed > grace else { return false }
        return Double(bodyReceived) < Double(context.limits.bodyMinimumRate) * Double(elapsed) / 1e9
    }

    // MARK: - Closing

    /// Graceful shutdown: close now if idle, else after the request in progress is answered.
    func drain() {
        guard !closed else { return }
        draining = true
        if !busy && parser.isBetweenRequests {
            close()
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        busy = true
        deadlineDue = .max
        if token != 0 { loop.deregister(fd, token: token) }
        Glibc.close(fd)
        context.connectionClosed(self)
    }
}

extension Duration {
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
