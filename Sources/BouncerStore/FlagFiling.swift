import BouncerDomain

/// What a user's flag is planned on: the message, the reporter's open flag on it, and how many
/// other users have open flags on it.
public struct FlagSnapshot: Sendable, Equatable {
    public var message: StoredMessage
    public var reporterFlag: StoredFlag?
    public var otherReporters: Int

    public init(message: StoredMessage, reporterFlag: StoredFlag?, otherReporters: Int) {
        self.message = message
        self.reporterFlag = reporterFlag
        self.otherReporters = otherReporters
    }
}

/// A user's flag, decided from a snapshot: an answer at once (no such message for this reporter,
/// their own message, their flag already open), or a flag to file, hiding the message when it
/// brings the reporters to `hideThreshold`. `FlagRepository.applyFiling` writes it with its events.
public struct FlagFiling: Sendable {
    public var snapshot: FlagSnapshot
    public var flag: StoredFlag
    public var hideThreshold: Int
    /// Whether this flag hides the message.
    public var hides: Bool
    /// The message as the filing leaves it.
    public var message: StoredMessage
    public var events: [NewEvent] = []

    public enum Decision: Sendable {
        case answer(FlagOutcome)
        case file(FlagFiling)
    }

    public static func decide(_ snapshot: FlagSnapshot?, reporter: Viewer, reason: String, details: String?, custom: String?, id: String,
                              now: String, hideThreshold: Int) -> Decision {
        // A tombstone has nothing left to report: as if the message did not exist.
        guard let snapshot, snapshot.message.state != .deleted,
              MessageVisibility.isVisible(state: snapshot.message.state, hidden: snapshot.message.hidden,
                                          authorID: snapshot.message.userID, to: reporter) else { return .answer(.messageNotFound) }
        let message = snapshot.message
        guard message.userID != reporter.userID else { return .answer(.ownMessage) }
        if let existing = snapshot.reporterFlag { return .answer(.existing(existing)) }
        let flag = StoredFlag(id: id, messageID: message.id, channelID: message.channelID, reporterID: reporter.userID, reason: reason,
                              details: details, custom: custom, ruleID: nil, state: .open, resolution: nil, resolvedBy: nil,
                              resolvedAt: nil, createdAt: now)
        let hides = hides(message, otherReporters: snapshot.otherReporters, threshold: hideThreshold)
        var after = message
        after.hidden = message.hidden || hides
        return .file(FlagFiling(snapshot: snapshot, flag: flag, hideThreshold: hideThreshold, hides: hides, message: after))
    }

    /// Whether one more reporter hides `message`: it is not hidden yet, and the reporters reach
    /// the threshold (more than 0).
    static func hides(_ message: StoredMessage, otherReporters: Int, threshold: Int) -> Bool {
        threshold > 0 && !message.hidden && otherReporters + 1 >= threshold
    }
}
