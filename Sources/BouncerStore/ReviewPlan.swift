import BouncerDomain

/// What a review decision is planned on: the message, how many open flags it has, and its author's
/// standing, all read at the decision's `now`.
public struct ReviewSnapshot: Sendable, Equatable {
    public var message: StoredMessage
    public var openFlags: Int
    public var author: Standing
    public var now: String

    public init(message: StoredMessage, openFlags: Int, author: Standing, now: String) {
        self.message = message
        self.openFlags = openFlags
        self.author = author
        self.now = now
    }
}

/// Everything a review writes, decided before its transaction. `FlagRepository.applyReview` writes
/// it all in one transaction while `snapshot` still holds.
public struct ReviewPlan: Sendable {
    public var snapshot: ReviewSnapshot
    /// The flags' resolution (`dismissed`, `message_removed`, `author_banned`).
    public var resolution: String
    public var moderatorID: String
    /// The message as the review leaves it (removed, or shown again when auto-hidden).
    public var message: StoredMessage
    /// The rules that hit the message, each given the review's outcome (`confirmed`, `dismissed`).
    public var ruleReviews: [String]
    public var ruleOutcome: String
    public var audit: AuditEntry
    /// A new strike on the author (none when the decision confirms nothing, or the message has one).
    public var strike: StoredStrike?
    /// The ban the strike policy gives for the author's strikes now.
    public var strikeBan: PlannedBan?
    /// The moderator's ban (`ban_author`), unless the strike policy's lasts at least as long.
    public var moderatorBan: PlannedBan?
    /// The review's own events (`review.decided`).
    public var events: [NewEvent]
    /// What the review answers, but for the bans' versions, which the store sets.
    public var result: ReviewResult

    public init(snapshot: ReviewSnapshot, resolution: String, moderatorID: String, message: StoredMessage, ruleReviews: [String],
                ruleOutcome: String, audit: AuditEntry, strike: StoredStrike?, strikeBan: PlannedBan?, moderatorBan: PlannedBan?,
                events: [NewEvent], result: ReviewResult) {
        self.snapshot = snapshot
        self.resolution = resolution
        self.moderatorID = moderatorID
        self.message = message
        self.ruleReviews = ruleReviews
        self.ruleOutcome = ruleOutcome
        self.audit = audit
        self.strike = strike
        self.strikeBan = strikeBan
        self.moderatorBan = moderatorBan
        self.events = events
        self.result = result
    }
}
