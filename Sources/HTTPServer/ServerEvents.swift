/// What the server reports to whoever runs it: the server itself writes no logs.
public struct ServerEvents: Sendable {
    public var requestCompleted: @Sendable (AccessLogEntry) -> Void
    /// Something went wrong that no client is told about in detail (accept failures, handler
    /// errors that became a 500). `requestID` is set when a request was involved.
    public var failure: @Sendable (_ message: String, _ requestID: String?) -> Void

    public init(requestCompleted: @escaping @Sendable (AccessLogEntry) -> Void = { _ in },
                failure: @escaping @Sendable (String, String?) -> Void = { _, _ in }) {
        self.requestCompleted = requestCompleted
        self.failure = failure
    }
}
