import BouncerDomain
import BouncerIdentity
import BouncerStore
import JSON

/// What happened, as the world outside Bouncer hears of it. Each is written in the transaction of
/// its change (see `NewEvent`).
package enum EventType: String, CaseIterable, Sendable {
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
    package static func of(_ type: EventType, _ data: some Encodable) throws -> NewEvent {
        NewEvent(type: type.rawValue, data: try JSONText.encodedString(data), createdAt: Timestamp.now())
    }
}

/// The `data` of `rule.changed`: what changed, and the rule (its id only, once deleted), or how
/// many rules an import added.
package struct RuleChange<Rule: Encodable>: Encodable {
    package var change: String
    package var rule: Rule?
    package var count: Int?

    package static func imported(_ count: Int) -> RuleChange<Rule> { RuleChange(change: "imported", rule: nil, count: count) }

    package init(change: String, rule: Rule? = nil, count: Int? = nil) {
        self.change = change
        self.rule = rule
        self.count = count
    }
}

/// The `data` of `localization.changed`: the locale, and the keys set or removed.
package struct LocalizationChange: Encodable {
    package var locale: String
    package var set: [String]
    package var removed: [String]

    package init(locale: String, set: [String], removed: [String]) {
        self.locale = locale
        self.set = set
        self.removed = removed
    }
}
