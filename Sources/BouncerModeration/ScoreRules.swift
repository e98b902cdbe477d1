import BouncerDomain

/// A text's scores from a learned classifier, one for each attribute it knows, in its order.
public struct HarmScores: Sendable, Equatable {
    public var attributes: [String]
    public var values: [Double]

    public init(attributes: [String] = [], values: [Double] = []) {
        precondition(attributes.count == values.count)
        self.attributes = attributes
        self.values = values
    }

    public var isEmpty: Bool { attributes.isEmpty }

    public subscript(attribute: String) -> Double? {
        attributes.firstIndex(of: attribute).map { values[$0] }
    }
}

/// Judges a text by the `score` rules: a rule matches when the text's score for its attribute is
/// at or above its threshold. A rule whose attribute the classifier in force does not know
/// matches nothing.
public enum ScoreRules {
    public static func judge(_ scores: HarmScores, text: String, rules: [RuleDefinition], channel: String?,
                             sender: SenderFacts?) -> RateRules.Matches {
        guard !rules.isEmpty, !scores.isEmpty else { return ([], []) }
        var enforced: [Verdict.RuleMatch] = [], observed: [Verdict.RuleMatch] = []
        for index in rules.indices {
            guard case .score(let attribute, let threshold)? = rules[index].params, let score = scores[attribute], score >= threshold,
                  rules[index].applies(to: channel), rules[index].applies(to: sender) else { continue }
            let rule = rules[index]
            let match = Verdict.RuleMatch(ruleID: rule.id, name: rule.name, kind: rule.kind, action: rule.action, priority: rule.priority,
                                          matched: [MatchSpan.wholeText(text)], attribute: attribute, score: score)
            if rule.mode == .enforce { enforced.append(match) } else { observed.append(match) }
        }
        return (enforced, observed)
    }
}

extension MatchSpan {
    /// A match of the whole text (a flood's, a score's).
    public static func wholeText(_ text: String) -> MatchSpan {
        MatchSpan(text: text, start: 0, end: text.unicodeScalars.count, utf16Start: 0, utf16End: text.utf16.count)
    }
}
