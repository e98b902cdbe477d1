/// Who is looking at messages: moderators see every message, others what `MessageVisibility`
/// lets them.
public struct Viewer: Sendable, Equatable {
    public var userID: String
    public var seesEverything: Bool

    public init(userID: String, seesEverything: Bool) {
        self.userID = userID
        self.seesEverything = seesEverything
    }

    public init(userID: String, role: Role) {
        self.init(userID: userID, seesEverything: role >= .moderator)
    }
}
