import BouncerDomain

/// Who a request acts for, from a verified token.
public struct Identity: Sendable, Equatable {
    public var userID: String
    public var role: Role

    public init(userID: String, role: Role) {
        self.userID = userID
        self.role = role
    }
}

extension Identity {
    /// The caller as a reader of messages.
    public var viewer: Viewer { Viewer(userID: userID, role: role) }
}
