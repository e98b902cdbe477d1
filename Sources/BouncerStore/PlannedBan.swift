import BouncerDomain

/// A ban a decision's plan writes (a review's `ban_author`, or the strike policy's ban), with its
/// cause, audit entry and events, all in the decision's own transaction.
public struct PlannedBan: Sendable {
    public var ban: StoredBan
    public var cause: BanCause
    public var audit: AuditEntry
    public var events: [NewEvent]

    public init(ban: StoredBan, cause: BanCause = .none, audit: AuditEntry, events: [NewEvent]) {
        self.ban = ban
        self.cause = cause
        self.audit = audit
        self.events = events
    }

    /// Whether a ban that ends at `end` ends before one that ends at `other` (nil: never ends).
    public static func ends(_ end: String?, before other: String?) -> Bool {
        switch (end, other) {
        case (nil, _): false
        case (.some, nil): true
        case let (end?, other?): end < other
        }
    }
}
