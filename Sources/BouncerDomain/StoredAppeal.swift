/// An appeal as stored: its author contests a message's moderation (`message`, the message's id)
/// or the ban in force on them (`ban`, their own id).
public struct StoredAppeal: Sendable, Equatable {
    public var id: String
    public var targetType: String
    public var targetID: String
    public var userID: String
    public var reason: String
    /// `open`, `upheld` or `overturned`.
    public var state: String
    public var decidedBy: String?
    public var decidedAt: String?
    public var note: String?
    public var createdAt: String

    public init(id: String, targetType: String, targetID: String, userID: String, reason: String, state: String = "open",
                decidedBy: String? = nil, decidedAt: String? = nil, note: String? = nil, createdAt: String) {
        self.id = id
        self.targetType = targetType
        self.targetID = targetID
        self.userID = userID
        self.reason = reason
        self.state = state
        self.decidedBy = decidedBy
        self.decidedAt = decidedAt
        self.note = note
        self.createdAt = createdAt
    }
}
