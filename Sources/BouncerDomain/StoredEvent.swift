/// An event of the event log, as stored: its type and its data as JSON text.
public struct StoredEvent: Sendable, Equatable {
    /// Increases in commit order.
    public var id: Int64
    public var type: String
    public var createdAt: String
    public var data: String

    public init(id: Int64, type: String, createdAt: String, data: String) {
        self.id = id
        self.type = type
        self.createdAt = createdAt
        self.data = data
    }
}
