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
    /// The same or nearly the same message, many times in a short while (a rate rule).
    case flood
    /// Too many distinct `@name` mentions in one message (a rate rule).
    case mentions
    /// Too many links in one message, or from one user in a short while (a rate rule).
    case links
    /// A learned score of the text (`toxicity`, ...) at or above a threshold.
    case score

    /// `allow` rules take no action; every other kind needs one.
    public var takesAction: Bool { self != .allow }

    /// Rate rules judge a message by its sender and what they sent before, with `params`; the
    /// others match the text against `pattern`.
    public var isRate: Bool { self == .flood || self == .mentions || self == .links }

    /// Rate and score rules have settings in `params` instead of a `pattern`.
    public var takesParams: Bool { isRate || self == .score }
}

/// Whether a rule decides verdicts, or is only watched.
public enum RuleMode: String, Sendable, Codable, CaseIterable {
    case enforce
    /// Matched and counted like any rule, shown to moderators, but never acting.
    case observe
}

/// What makes two messages of a `flood` the same.
public enum FloodSimilarity: String, Sendable, Codable, CaseIterable {
    /// The same text after normalization.
    case identical
    /// Near-duplicates: a few characters changed, added or reordered.
    case similar
}

/// A rate rule's settings.
public enum RuleParams: Sendable, Equatable {
    /// The `threshold`-th message within `windowSeconds` that is the same as earlier ones.
    case flood(threshold: Int, windowSeconds: Int, similarity: FloodSimilarity)
    /// More than `max` distinct mentions in one message.
    case mentions(max: Int)
    /// More than `max` links in one message, or, with a window, from one user within it.
    case links(max: Int, windowSeconds: Int?)
    /// The text's score for `attribute` at or above `threshold` (0 to 1).
    case score(attribute: String, threshold: Double)

    /// The kind of rule these settings are for.
    public var kind: RuleKind {
        switch self {
        case .flood: .flood
        case .mentions: .mentions
        case .links: .links
        case .score: .score
        }
    }

    /// How far back the rule looks at a sender's messages (nil: only at this one).
    public var windowSeconds: Int? {
        switch self {
        case .flood(_, let window, _): window
        case .mentions: nil
        case .links(_, let window): window
        case .score: nil
        }
    }
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
    public var mode: RuleMode
    /// A rate rule's settings; nil for the others.
    public var params: RuleParams?
    /// Senders of these roles are spared the rule.
    public var exemptRoles: [Role]
    /// When set, the rule applies only to senders first seen less than this many seconds ago.
    public var newUsersOnlySeconds: Int?

    public init(id: String, name: String = "", kind: RuleKind, pattern: String, action: RuleAction?,
                channels: [String] = ["*"], enabled: Bool = true, priority: Int = 0, inflections: Bool? = nil,
                mode: RuleMode = .enforce, params: RuleParams? = nil, exemptRoles: [Role] = [], newUsersOnlySeconds: Int? = nil) {
        self.id = id
        self.name = name
        self.kind = kind
        self.pattern = pattern
        self.action = action
        self.channels = channels
        self.enabled = enabled
        self.priority = priority
        self.inflections = inflections
        self.mode = mode
        self.params = params
        self.exemptRoles = exemptRoles
        self.newUsersOnlySeconds = newUsersOnlySeconds
    }

    /// Whether the rule judges messages from this sender (nil: no particular sender, as for
    /// `moderation/check`, where every rule applies).
    @inlinable
    public func applies(to sender: SenderFacts?) -> Bool {
        guard let sender else { return true }
        if exemptRoles.contains(sender.role) { return false }
        if let newUsersOnlySeconds, sender.secondsSinceFirstSeen >= Double(newUsersOnlySeconds) { return false }
        return true
    }
}

/// What rules may ask about a message's sender.
public struct SenderFacts: Sendable, Equatable {
    public var userID: String
    public var role: Role
    /// Since the user's first message (0 for their first).
    public var secondsSinceFirstSeen: Double

    public init(userID: String, role: Role, secondsSinceFirstSeen: Double) {
        self.userID = userID
        self.role = role
        self.secondsSinceFirstSeen = secondsSinceFirstSeen
    }
}

extension RuleParams {
    /// The settings as the API and the store write them: one flat object, its fields by kind.
    public struct Fields: Codable, Sendable, Equatable {
        /// A flood's count (a whole number), or a score's threshold (0 to 1).
        public var threshold: Double?
        public var window_seconds: Int?
        public var similarity: FloodSimilarity?
        public var max: Int?
        public var attribute: String?

        public init(threshold: Double? = nil, window_seconds: Int? = nil, similarity: FloodSimilarity? = nil, max: Int? = nil,
                    attribute: String? = nil) {
            self.threshold = threshold
            self.window_seconds = window_seconds
            self.similarity = similarity
            self.max = max
            self.attribute = attribute
        }
    }

    /// Longest window a rate rule may look back: what a sender's marks are kept in memory for.
    public static let maxWindowSeconds = 3600
    /// Most mentions or links a rule may allow.
    public static let maxCount = 1000
    /// Largest flood threshold: a sender's marks are kept in memory, at most twice this many a rule.
    public static let maxThreshold = 100

    public var fields: Fields {
        switch self {
        case .flood(let threshold, let window, let similarity):
            Fields(threshold: Double(threshold), window_seconds: window, similarity: similarity)
        case .mentions(let max):
            Fields(max: max)
        case .links(let max, let window):
            Fields(window_seconds: window, max: max)
        case .score(let attribute, let threshold):
            Fields(threshold: threshold, attribute: attribute)
        }
    }

    /// Settings for a rule of `kind` from `fields`, or why they cannot be used.
    public init(kind: RuleKind, fields: Fields) throws(RuleParamsError) {
        func window(required: Bool) throws(RuleParamsError) -> Int? {
            guard let seconds = fields.window_seconds else {
                if required { throw RuleParamsError("`params.window_seconds` is required for \(kind.rawValue) rules", key: "params.window_required", [kind.rawValue]) }
                return nil
            }
            guard (1...Self.maxWindowSeconds).contains(seconds) else {
                throw RuleParamsError("`params.window_seconds` must be from 1 to \(Self.maxWindowSeconds)", key: "params.window_range", [String(Self.maxWindowSeconds)])
            }
            return seconds
        }
        func count(_ value: Int?, _ name: String, from lowest: Int, to highest: Int = Self.maxCount) throws(RuleParamsError) -> Int {
            guard let value else { throw RuleParamsError("`params.\(name)` is required for \(kind.rawValue) rules", key: "params.required", [name, kind.rawValue]) }
            guard (lowest...highest).contains(value) else {
                throw RuleParamsError("`params.\(name)` must be from \(lowest) to \(highest)", key: "params.range", [name, String(lowest), String(highest)])
            }
            return value
        }
        func unused(_ names: [(String, Bool)]) throws(RuleParamsError) {
            if let name = names.first(where: { $0.1 })?.0 {
                throw RuleParamsError("`params.\(name)` is not a setting of \(kind.rawValue) rules", key: "params.not_a_setting", [name, kind.rawValue])
            }
        }
        switch kind {
        case .flood:
            try unused([("max", fields.max != nil), ("attribute", fields.attribute != nil)])
            let threshold = try fields.threshold.map { (value: Double) throws(RuleParamsError) -> Int in
                guard let whole = Int(exactly: value) else {
                    throw RuleParamsError("`params.threshold` must be a whole number for flood rules", key: "params.whole", ["threshold", kind.rawValue])
                }
                return whole
            }
            self = .flood(threshold: try count(threshold, "threshold", from: 2, to: Self.maxThreshold), windowSeconds: try window(required: true)!,
                          similarity: fields.similarity ?? .identical)
        case .score:
            try unused([("max", fields.max != nil), ("window_seconds", fields.window_seconds != nil), ("similarity", fields.similarity != nil)])
            guard let attribute = fields.attribute else {
                throw RuleParamsError("`params.attribute` is required for score rules", key: "params.required", ["attribute", kind.rawValue])
            }
            guard Self.isAttributeName(attribute) else {
                throw RuleParamsError("`params.attribute` must be 1-40 characters of a-z, 0-9 and _", key: "params.attribute")
            }
            guard let threshold = fields.threshold else {
                throw RuleParamsError("`params.threshold` is required for score rules", key: "params.required", ["threshold", kind.rawValue])
            }
            guard threshold > 0 && threshold <= 1 else {
                throw RuleParamsError("`params.threshold` must be above 0 and at most 1 for score rules", key: "params.score_threshold")
            }
            self = .score(attribute: attribute, threshold: threshold)
        case .mentions:
            try unused([("threshold", fields.threshold != nil), ("window_seconds", fields.window_seconds != nil),
                        ("similarity", fields.similarity != nil), ("attribute", fields.attribute != nil)])
            self = .mentions(max: try count(fields.max, "max", from: 0))
        case .links:
            try unused([("threshold", fields.threshold != nil), ("similarity", fields.similarity != nil), ("attribute", fields.attribute != nil)])
            self = .links(max: try count(fields.max, "max", from: 0), windowSeconds: try window(required: false))
        default:
            throw RuleParamsError("\(kind.rawValue) rules take no `params`", key: "rules.no_params", [kind.rawValue])
        }
    }
}

extension RuleParams {
    /// What a score's attribute may be called (`toxicity`, `insult`): as a model names it.
    public static func isAttributeName(_ name: String) -> Bool {
        (1...40).contains(name.utf8.count) && name.utf8.allSatisfy { $0 &- 97 < 26 || $0 &- 48 < 10 || $0 == UInt8(ascii: "_") }
    }
}

/// Why a rate rule's settings cannot be used.
public struct RuleParamsError: Error, Sendable, Equatable {
    public var reason: String
    /// The text key of the reason as a sentence (a problem's `error.detail.<key>`), and the
    /// values in it.
    public var key: String
    public var arguments: [String]
    public init(_ reason: String, key: String, _ arguments: [String] = []) {
        self.reason = reason
        self.key = key
        self.arguments = arguments
    }
}
