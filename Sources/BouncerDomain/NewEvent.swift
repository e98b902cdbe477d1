/// A change as the world outside Bouncer hears of it (`GET /v1/events`, the stream, webhooks):
/// written in the change's own transaction, so no change is acknowledged without its event and no
/// event exists for a change that did not commit.
public struct NewEvent: Sendable, Equatable {
    public var type: String
    /// The event's `data`, as JSON text.
    public var data: String
    public var createdAt: String

    public init(type: String, data: String, createdAt: String) {
        self.type = type
        self.data = data
        self.createdAt = createdAt
    }
}
