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
        /// A score rule's attribute, and the text's score for it.
        public var attribute: String?
        public var score: Double?

        public init(ruleID: String, name: String, kind: RuleKind, action: RuleAction?, priority: Int, matched: [MatchSpan],
                    attribute: String? = nil, score: Double? = nil) {
            self.ruleID = ruleID
            self.name = name
            self.kind = kind
            self.action = action
            self.priority = priority
            self.matched = matched
            self.attribute = attribute
            self.score = score
        }

        /// The order of a verdict's rules: strongest action first, then higher priority, then
        /// the earlier match, then the id.
        static func precedes(_ a: RuleMatch, _ b: RuleMatch) -> Bool {
            let strengthA = a.action?.strength ?? Int.max, strengthB = b.action?.strength ?? Int.max
            if strengthA != strengthB { return strengthA < strengthB }
            if a.priority != b.priority { return a.priority > b.priority }
            let startA = a.matched.first?.start ?? 0, startB = b.matched.first?.start ?? 0
            if startA != startB { return startA < startB }
            return a.ruleID < b.ruleID
        }
    }

    /// The strongest action of the matching rules; nil when none matched.
    public var action: RuleAction?
    /// Every matching enforced rule (allow rules excepted), strongest action first, then by
    /// priority.
    public var rules: [RuleMatch]
    /// Every matching rule in observe mode, in the same order: they decide nothing.
    public var observed: [RuleMatch]
    /// The text with the matches of `mask_flag` rules masked, when that is the verdict.
    public var maskedText: String?
    /// The classifier's scores of the text (none when no classifier is in force).
    public var scores = HarmScores()

    public init(action: RuleAction?, rules: [RuleMatch], observed: [RuleMatch] = [], maskedText: String?) {
        self.action = action
        self.rules = rules
        self.observed = observed
        self.maskedText = maskedText
    }

    /// The rule whose action decided the verdict.
    public var decidingRule: RuleMatch? { rules.first }

    /// This verdict with the matches of rules judged apart (rate rules) added: the strongest
    /// action of them all decides.
    public func adding(rules extra: [RuleMatch], observed extraObserved: [RuleMatch]) -> Verdict {
        guard !extra.isEmpty || !extraObserved.isEmpty else { return self }
        let merged = (rules + extra).sorted(by: RuleMatch.precedes)
        let action = merged.first?.action
        // A mask comes from text rules; it stands only while one of them decides.
        var verdict = Verdict(action: action, rules: merged, observed: (observed + extraObserved).sorted(by: RuleMatch.precedes),
                              maskedText: action == self.action ? maskedText : nil)
        verdict.scores = scores
        return verdict
    }

    public static let none = Verdict(action: nil, rules: [], maskedText: nil)
}
