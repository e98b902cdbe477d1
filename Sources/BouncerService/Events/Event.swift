import BouncerDomain
import BouncerIdentity
import BouncerStore
import JSON

/// What happened, as the world outside Bouncer hears of it. Each is written in the transaction of
/// its change (see `NewEvent`).
enum EventType: String, CaseIterable, Sendable {
    case messageBounced = "message.bounced"
    case messageRemoved = "message.removed"
    case messageShadowed = "message.shadowed"
    case messageFlagged = "message.flagged"
    case messageHidden = "message.hidden"
    case messageResent = "message.resent"
    case messageEdited = "message.edited"
    case messageDeleted = "message.deleted"
    case flagWithdrawn = "flag.withdrawn"
    case reviewDecided = "review.decided"
    case userBanned = "user.banned"
    case userUnbanned = "user.unbanned"
    case ruleChanged = "rule.changed"
    case configChanged = "config.changed"
    case localizationChanged = "localization.changed"
    case appealCreated = "appeal.created"
    case appealDecided = "appeal.decided"
}

extension NewEvent {
    /// An event of `type` whose `data` is `data` as JSON, stamped now.
    static func of(_ type: EventType, _ data: some Encodable) throws -> NewEvent {
        NewEvent(type: type.rawValue, data: try JSONText.encodedString(data), createdAt: Timestamp.now())
    }
}

/// The `data` of `rule.changed`: what changed, and the rule (its id only, once deleted), or how
/// many rules an import added.
struct RuleChange<Rule: Encodable>: Encodable {
    var change: String
    var rule: Rule?
    var count: Int?

    static func imported(_ count: Int) -> RuleChange<Rule> { RuleChange(change: "imported", rule: nil, count: count) }
}

/// The `data` of `localization.changed`: the locale, and the keys set or removed.
struct LocalizationChange: Encodable {
    var locale: String
    var set: [String]
    var removed: [String]
}
