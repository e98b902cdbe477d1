/// Answering a request without a socket: what a connection does once a request is whole (the
/// route's body limit, routing, the handler of whichever kind, errors rendered by the server's
/// `ProblemRenderer`), in the caller's task. For tests of a route's behaviour that do not need
/// the wire; the wire's own behaviour (framing, timeouts, pipelining) is the connection's.
extension HTTPServer {
    /// The response `head` and `body` get. Works whether or not the server was started.
    public func respond(to head: RequestHead, body: [UInt8] = []) async -> Response {
        let context = ServerContext(limits: configuration.limits, router: router, problemRenderer: problemRenderer, events: events,
                                    onConnectionClosed: { _ in })
        var request = Request(head: head, body: body, id: RequestID.for(head), maxJSONDepth: configuration.limits.maxJSONDepth)
        let route = router.route(method: head.method, path: head.path)
        switch route.match {
        case .found(let handler, let parameters):
            let bodyLimit = route.bodyLimit ?? configuration.limits.maxBodyBytes
            guard body.count <= bodyLimit else { return context.render(HTTPError.bodyTooLarge(bodyLimit), request: request) }
            request.parameters = parameters
            return context.response(await Self.run(handler, request), to: request)
        case .notFound:
            return context.render(HTTPError.notFound(), request: request)
        case .methodNotAllowed(let allowed):
            return context.render(HTTPError.methodNotAllowed(request.method, allowed: allowed), request: request)
        }
    }

    private static func run(_ handler: Handler, _ request: Request) async -> Result<Response, any Error> {
        switch handler {
        case .immediate(let body):
            return Result { try body(request) }
        case .async(let body):
            return await Result { try await body(request) }
        case .callback(let body):
            let build: @Sendable () throws -> Response = await withCheckedContinuation { continuation in
                let responder = Responder { build in continuation.resume(returning: build) }
                do {
                    try body(request, responder)
                } catch {
                    responder.fail(error)
                }
            }
            return Result(catching: build)
        }
    }
}
