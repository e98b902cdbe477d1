/// A ban as stored.
public struct StoredBan: Sendable, Equatable {
    public var userID: String
    public var reason: String?
    public var shadow: Bool
    public var expiresAt: String?
    public var createdBy: String
    public var createdAt: String

    public init(userID: String, reason: String?, shadow: Bool, expiresAt: String?, createdBy: String, createdAt: String) {
        self.userID = userID
        self.reason = reason
        self.shadow = shadow
        self.expiresAt = expiresAt
        self.createdBy = createdBy
        self.createdAt = createdAt
    }
}
