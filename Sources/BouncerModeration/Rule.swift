import BouncerDomain

/// A rule as the engine needs it (the store keeps the rest: who made it, and when).
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

    /// Whether the rule applies to messages in `channel` (nil: every rule applies).
    func applies(to channel: String?) -> Bool {
        guard let channel else { return true }
        return channels.contains { ChannelGlob.matches($0, channel) }
    }
}

enum ChannelGlob {
    /// `*` matches any run of characters; everything else matches itself.
    static func matches(_ pattern: String, _ channel: String) -> Bool {
        if pattern == "*" { return true }
        guard pattern.utf8.contains(UInt8(ascii: "*")) else { return pattern == channel }
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false)
        var rest = Substring(channel)
        guard rest.hasPrefix(parts[0]) else { return false }
        rest = rest.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() {
            guard let range = rest.firstRange(of: part) else { return false }
            rest = rest[range.upperBound...]
        }
        return rest.hasSuffix(parts.last!) && rest.count >= parts.last!.count
    }
}
