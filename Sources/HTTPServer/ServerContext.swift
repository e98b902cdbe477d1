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
}
