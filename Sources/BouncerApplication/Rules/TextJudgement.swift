import BouncerClassifier
import BouncerDomain
import BouncerModeration

/// A text judged by itself, with no sender's history: the text rules, what the rate rules see in
/// the text alone (mentions, links; floods and link windows need a history), and the score rules
/// with the classifier's scores. What `moderation/check`, an edit and a dry run ask.
package enum TextJudgement {
    package static func alone(_ text: String, _ set: CompiledRuleSet, model: HarmModel?, channel: String?, sender: SenderFacts?) -> Verdict {
        let normalized = NormalizedText(text)
        return alone(text, normalized: normalized, set, scores: model?.harmScores(normalized) ?? HarmScores(), channel: channel, sender: sender)
    }

    /// The same, with the text normalized and scored already (a dry run judges each message by
    /// two rule sets).
    package static func alone(_ text: String, normalized: NormalizedText, _ set: CompiledRuleSet, scores: HarmScores, channel: String?,
                              sender: SenderFacts?) -> Verdict {
        let verdict = set.check(normalized, channel: channel, sender: sender)
        let rates: RateRules.Matches = set.rateRules.isEmpty ? ([], []) : RateRules.judgeAlone(text, normalizedWords: normalized.words, rules: set.rateRules,
                                                                             channel: channel, sender: sender)
        return withScores(verdict.adding(rules: rates.rules, observed: rates.observed), scores, text: text, set, channel: channel, sender: sender)
    }

    /// `verdict` with the score rules' matches added and the scores kept.
    package static func withScores(_ verdict: Verdict, _ scores: HarmScores, text: String, _ set: CompiledRuleSet, channel: String?,
                                   sender: SenderFacts?) -> Verdict {
        let matches = ScoreRules.judge(scores, text: text, rules: set.scoreRules, channel: channel, sender: sender)
        var scored = verdict.adding(rules: matches.rules, observed: matches.observed)
        scored.scores = scores
        return scored
    }
}
