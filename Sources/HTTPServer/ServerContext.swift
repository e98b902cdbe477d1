/// What every connection of one server shares: read-only after start, except the registry.
final class ServerContext: Sendable {
    let limits: ServerLimits
    let router: Router
    let problemRenderer: any ProblemRenderer
    let events: ServerEvents
    let onConnectionClosed: @Sendable (Connection) -> Void

    init(limits: ServerLimits, router: Router, problemRenderer: any ProblemRenderer, events: ServerEvents,
         onConnectionClosed: @escaping @Sendable (Connection) -> Void) {
        self.limits = limits
        self.router = router
        self.problemRenderer = problemRenderer
        self.events = events
        self.onConnectionClosed = onConnectionClosed
    }

    func connectionClosed(_ connection: Connection) { onConnectionClosed(connection) }

    /// The response for an error a handler threw: problem JSON for an `HTTPError`, and a 500 that
    /// says nothing of the cause for anything else (the cause goes to the log).
    func render(_ error: any Error, request: Request) -> Response {
        if let error = error as? HTTPError {
            return problemRenderer.render(error, for: request.head, requestID: request.id)
        }
        if let known = problemRenderer.problem(for: error) {
            return problemRenderer.render(known, for: request.head, requestID: request.id)
        }
        events.failure("request failed: \(String(describing: error))", request.id)
        let internalError = HTTPError(.internalServerError, code: "internal_error",
                                      detail: "The server could not complete the request.")
        return problemRenderer.render(internalError, for: request.head, requestID: request.id)
    }

    func render(_ error: HTTPError, request: Request?, requestID: String) -> Response {
        problemRenderer.render(error, for: request?.head, requestID: requestID)
    }
}
