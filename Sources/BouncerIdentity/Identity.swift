import BouncerDomain

/// Who a request acts for, from a verified token.
public struct Identity: Sendable, Equatable {
    public var userID: String
    public var role: Role
    /// Seconds since 1970 after which the token is no longer accepted (its `exp`, leeway
    /// included); nil when it has none. What outlives one request (an event stream) ends then.
    public var expires: Double?

    public init(userID: String, role: Role, expires: Double? = nil) {
        self.userID = userID
        self.role = role
        self.expires = expires
    }
}

extension Identity {
    /// The caller as a reader of messages.
    public var viewer: Viewer { Viewer(userID: userID, role: role) }
}
