import BouncerDomain
/// What the rules say about a text.
public struct Verdict: Sendable, Equatable {
    public struct RuleMatch: Sendable, Equatable {
        public var ruleID: String
        public var name: String
        public var kind: RuleKind
        public var action: RuleAction?
        public var priority: Int
        /// Every place the rule matched, in text order.
        public var matched: [MatchSpan]
    }

    /// The strongest action of the matching rules; nil when none matched.
    public var action: RuleAction?
    /// Every matching rule (allow rules excepted), strongest action first, then by priority.
    public var rules: [RuleMatch]
    /// The text with the matches of `mask_flag` rules masked, when that is the verdict.
    public var maskedText: String?

    /// The rule whose action decided the verdict.
    public var decidingRule: RuleMatch? { rules.first }

    public static let none = Verdict(action: nil, rules: [], maskedText: nil)
}
