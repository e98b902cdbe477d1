/// A strike as stored: a confirmed violation that counts against `userID` until `expiresAt`.
public struct StoredStrike: Sendable, Equatable {
    public var id: String
    public var userID: String
    /// `message_removed`, `author_banned` or `appeal_upheld`.
    public var reason: String
    public var messageID: String?
    public var createdAt: String
    public var expiresAt: String

    public init(id: String, userID: String, reason: String, messageID: String?, createdAt: String, expiresAt: String) {
        self.id = id
        self.userID = userID
        self.reason = reason
        self.messageID = messageID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
