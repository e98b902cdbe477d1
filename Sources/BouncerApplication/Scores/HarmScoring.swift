import BouncerClassifier
import BouncerDomain
import BouncerModeration

/// Scores for callers of the scoring APIs (Perspective's and OpenAI's), which store nothing: the
/// model in force, and the threshold the score rules in force act at.
package struct HarmScoring: Sendable {
    package let classifier: Classifier
    package let rules: Rules

    package init(classifier: Classifier, rules: Rules) {
        self.classifier = classifier
        self.rules = rules
    }

    /// Longest text scored: Perspective's own limit, 20 KB of UTF-8.
    package static let maxTextBytes = 20_480

    /// The score at which a text counts as having `attribute`: the lowest threshold of the enabled,
    /// enforced score rules of that attribute, else 0.5.
    package func flagThreshold(_ attribute: String) -> Double {
        var lowest: Double?
        for rule in rules.engine.ruleSet.scoreRules where rule.mode == .enforce {
            if case .score(attribute, let threshold)? = rule.params { lowest = min(lowest ?? threshold, threshold) }
        }
        return lowest ?? 0.5
    }
}
