/// Where a message stands. Stored as its raw value; the API shows the same strings.
public enum MessageState: String, Sendable, CaseIterable, Codable {
    case delivered
    /// Returned to its author with an alert; nobody else sees it.
    case bounced
    /// To its author as good as delivered; only moderators see it otherwise.
    case shadowed
    /// Refused; its author sees why.
    case removed
    /// Deleted by its author or a moderator: kept as a placeholder without its text.
    case deleted

    /// The state a verdict's action leaves a new message in (nil: no rule matched).
    public init(after action: RuleAction?) {
        switch action {
        case nil, .flag?, .maskFlag?: self = .delivered
        case .shadow?: self = .shadowed
        case .remove?: self = .removed
        case .bounce?, .bounceFlag?, .bounceRemove?: self = .bounced
        }
    }

    /// Refused by moderation: shown to its author as an error, with the verdict.
    public var isRefused: Bool { self == .bounced || self == .removed }

    /// In the channel, as far as its author can tell.
    public var isDelivered: Bool { self == .delivered || self == .shadowed }

    /// The state `viewer` is shown: a shadowed message looks delivered to all but moderators.
    public func shown(to viewer: Viewer) -> MessageState {
        self == .shadowed && !viewer.seesEverything ? .delivered : self
    }
}

/// What "Send Anyway" does to a bounced message, decided by the action that bounced it.
public enum SendAnyway: Sendable, Equatable {
    /// Delivered, with a system flag so a moderator looks at what its author insisted on.
    case deliverAndFlag
    case remove
    /// A plain bounce stays bounced: the alert offers no "Send Anyway".
    case unavailable

    public init(bounceAction: RuleAction?) {
        switch bounceAction {
        case .bounceFlag?: self = .deliverAndFlag
        case .bounceRemove?: self = .remove
        default: self = .unavailable
        }
    }
}
