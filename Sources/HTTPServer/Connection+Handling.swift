/// Running the handler routing chose for a request, and bringing its response back to the
/// connection: at once for an immediate handler, later on the connection's loop for the others.
extension Connection {
    func handle(_ pending: PendingRequest) {
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
        var request = request
        switch handler {
        case .immediate(let body):
            respond(to: pending, with: context.response(Result { try body(request) }, to: request))
        case .async(let body):
            let client = ClientPresence()
            // A client that went before its request was taken up (the end read with its bytes).
            if inputHasEnded { client.markGone() }
            request.client = client
            handledClient = client
            Task { [request] in
                let response = context.response(await Result { try await body(request) }, to: request)
                self.loop.execute { self.finish(pending, with: response) }
            }
        case .callback(let body):
            // The request and its state are held once, here, by one object: the responder is
            // called on another thread (for a send, the store's writer, which every send waits
            // for), where it should only hand the builder over. A closure that captures that one
            // object is no allocation of its own.
            let exchange = CallbackExchange(connection: self, pending: pending, request: request)
            let responder = Responder { build in exchange.deliver(build) }
            do {
                try body(request, responder)
            } catch {
                responder.fail(error)
            }
        }
    }
}

/// A request answered by a callback, from whichever thread calls it: the connection's loop builds
/// and sends the response.
private final class CallbackExchange: Sendable {
    let connection: Connection
    let pending: Connection.PendingRequest
    let request: Request

    init(connection: Connection, pending: Connection.PendingRequest, request: Request) {
        self.connection = connection
        self.pending = pending
        self.request = request
    }

    func deliver(_ build: @escaping @Sendable () throws -> Response) {
        connection.loop.execute { [self] in
            connection.finish(pending, with: connection.context.response(Result(catching: build), to: request))
        }
    }
}
