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
}
