/// One finished request, for the access log.
public struct AccessLogEntry: Sendable {
    public var requestID: String
    public var method: String
    public var path: String
    /// The template of the matched route (`/v1/messages/{id}`); nil when none matched.
    public var route: String?
    public var status: Int
    /// Body bytes sent.
    public var bytes: Int
    public var duration: Duration
}

extension AccessLogEntry {
    /// The entry for a request answered now, `duration` after its head arrived.
    init(_ head: RequestHead, requestID: String, route: String?, status: HTTPStatus, bytes: Int, duration: Duration) {
        self.init(requestID: requestID, method: head.method, path: String(head.path), route: route, status: status.code,
                  bytes: bytes, duration: duration)
    }
}
