import BouncerDomain

/// What an appeal's decision is planned on, read at the decision's `now`: the appeal, the message
/// appealed (nil for a ban, or a message erased since), and the appellant's standing.
public struct AppealSnapshot: Sendable, Equatable {
    public var appeal: StoredAppeal
    public var message: StoredMessage?
    public var appellant: Standing
    public var now: String

    public init(appeal: StoredAppeal, message: StoredMessage?, appellant: Standing, now: String) {
        self.appeal = appeal
        self.message = message
        self.appellant = appellant
        self.now = now
    }
}

/// A ban an overturn lifts: the ban appealed, or the strike policy's once the strike taken back
/// leaves the user below its step (that one with an audit entry by `system`).
public struct LiftedBan: Sendable {
    public var userID: String
    public var audit: AuditEntry?
    public var events: [NewEvent]

    public init(userID: String, audit: AuditEntry?, events: [NewEvent]) {
        self.userID = userID
        self.audit = audit
        self.events = events
    }
}

/// Everything an appeal's decision writes, decided before its transaction.
/// `AppealRepository.applyAppealDecision` writes it all in one transaction while `snapshot` holds.
public struct AppealPlan: Sendable {
    public var snapshot: AppealSnapshot
    /// The appeal, decided.
    public var appeal: StoredAppeal
    /// The message as the decision leaves it (delivered again by an overturn).
    public var message: StoredMessage?
    /// The rules that hit an overturned message: each gets the outcome `dismissed`.
    public var dismissedRules: [String]
    /// The strike an overturn takes back: the message's, or the one behind the ban appealed.
    public var revokedStrikeID: String?
    public var liftedBan: LiftedBan?
    /// The strike an upheld removal makes, and the ban the strike policy then gives.
    public var strike: StoredStrike?
    public var strikeBan: PlannedBan?
    public var audit: AuditEntry
    /// The decision's own events (`appeal.decided`, and the ban appealed lifted).
    public var events: [NewEvent]
    /// What the decision answers, but for the bans' versions, which the store sets.
    public var result: AppealDecision

    public init(snapshot: AppealSnapshot, appeal: StoredAppeal, message: StoredMessage?, dismissedRules: [String],
                revokedStrikeID: String?, liftedBan: LiftedBan?, strike: StoredStrike?, strikeBan: PlannedBan?, audit: AuditEntry,
                events: [NewEvent], result: AppealDecision) {
        self.snapshot = snapshot
        self.appeal = appeal
        self.message = message
        self.dismissedRules = dismissedRules
        self.revokedStrikeID = revokedStrikeID
        self.liftedBan = liftedBan
        self.strike = strike
        self.strikeBan = strikeBan
        self.audit = audit
        self.events = events
        self.result = result
    }
}
