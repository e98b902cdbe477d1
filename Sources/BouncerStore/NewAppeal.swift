import BouncerDomain

/// What a user's appeal is planned on: the message appealed or the ban in force on them, and
/// whether it has been appealed already (a message once for good, a ban once while it lasts).
public struct AppealTargetSnapshot: Sendable, Equatable {
    public var message: StoredMessage?
    public var ban: StoredBan?
    public var appealed: Bool

    public init(message: StoredMessage?, ban: StoredBan?, appealed: Bool) {
        self.message = message
        self.ban = ban
        self.appealed = appealed
    }
}

/// A user's appeal, decided from a snapshot: an answer at once, or an appeal to file with its
/// events, which `AppealRepository.applyFiling` writes while the snapshot holds.
public struct NewAppeal: Sendable {
    public var snapshot: AppealTargetSnapshot
    public var appeal: StoredAppeal
    public var events: [NewEvent] = []

    public enum Decision: Sendable {
        case answer(AppealFiling)
        case file(NewAppeal)
    }

    /// `author`'s appeal of their bounced or removed message.
    public static func ofMessage(_ snapshot: AppealTargetSnapshot, messageID: String, author: Viewer, reason: String, id: String,
                                 now: String) -> Decision {
        guard let message = snapshot.message,
              MessageVisibility.isVisible(state: message.state, hidden: message.hidden, authorID: message.userID, to: author)
        else { return .answer(.notFound) }
        guard message.userID == author.userID else { return .answer(.notAppealable) }
        guard !snapshot.appealed else { return .answer(.exists) }
        guard message.state == .bounced || message.state == .removed else { return .answer(.notAppealable) }
        return .file(NewAppeal(snapshot: snapshot, appeal: StoredAppeal(id: id, targetType: "message", targetID: messageID,
                                                                         userID: author.userID, reason: reason, createdAt: now)))
    }

    /// `userID`'s appeal of the ban in force on them (a shadow ban is not one they know of).
    public static func ofBan(_ snapshot: AppealTargetSnapshot, userID: String, reason: String, id: String, now: String) -> Decision {
        guard let ban = snapshot.ban, !ban.shadow else { return .answer(.notFound) }
        guard !snapshot.appealed else { return .answer(.exists) }
        return .file(NewAppeal(snapshot: snapshot, appeal: StoredAppeal(id: id, targetType: "ban", targetID: userID, userID: userID,
                                                                         reason: reason, createdAt: now)))
    }
}
