/// What a rule looks for.
public enum RuleKind: String, Sendable, Codable, CaseIterable {
    /// A whole word; `*` at either end makes it a prefix, suffix or infix (`cat*`, `*cat*`).
    case word
    /// Words in sequence.
    case phrase
    /// A regular expression that can be matched in linear time.
    case regex
    /// Links to a domain or any of its subdomains.
    case domain
    /// An address (`a@b.example`) or every address of a domain (`*@b.example`).
    case email
    /// Text exempt from the other text rules (the Scunthorpe list).
    case allow

    /// `allow` rules take no action; every other kind needs one.
    public var takesAction: Bool { self != .allow }
}

/// What happens to a message a rule matches, strongest first.
public enum RuleAction: String, Sendable, Codable, CaseIterable, Comparable {
    case remove
    case shadow
    case bounceRemove = "bounce_remove"
    case bounceFlag = "bounce_flag"
    case bounce
    /// Deliver with the match masked, and file a system flag.
    case maskFlag = "mask_flag"
    /// Deliver, and file a system flag.
    case flag

    /// Lower is stronger.
    public var strength: Int { Self.allCases.firstIndex(of: self)! }

    public static func < (lhs: RuleAction, rhs: RuleAction) -> Bool { lhs.strength > rhs.strength }

    public var isBounce: Bool { self == .bounce || self == .bounceFlag || self == .bounceRemove }

    /// Delivers the message and files a system flag with reason `rule_match`.
    public var filesSystemFlag: Bool { self == .flag || self == .maskFlag }

    /// Keeps the message out of the channel: what an edit may not do to a message already in it.
    public var refusesDelivery: Bool { isBounce || self == .remove }
}

/// What a rule matches and what it does: what the engine compiles, and what the store keeps
/// with who made the rule and when (`StoredRule`).
public struct RuleDefinition: Sendable, Equatable {
    public var id: String
    public var name: String
    public var kind: RuleKind
    public var pattern: String
    /// Nil only for `allow` rules.
    public var action: RuleAction?
    /// Channel ids or glob patterns (`messaging:*`); `["*"]` is every channel.
    public var channels: [String]
    public var enabled: Bool
    /// Orders rules of the same action in a verdict (higher first); never overrides actions.
    public var priority: Int
    /// Whether a `word` rule also matches the word's inflections (`fucks`, `fucking`, see
    /// `Inflection`); nil follows the rule set's setting.
    public var inflections: Bool?

    public init(id: String, name: String = "", kind: RuleKind, pattern: String, action: RuleAction?,
                channels: [String] = ["*"], enabled: Bool = true, priority: Int = 0, inflections: Bool? = nil) {
        self.id = id
        self.name = name
        self.kind = kind
        self.pattern = pattern
        self.action = action
        self.channels = channels
        self.enabled = enabled
        self.priority = priority
        self.inflections = inflections
    }
}
