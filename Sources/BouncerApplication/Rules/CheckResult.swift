import BouncerModeration
import BouncerStore
import Foundation

/// What `POST /v1/moderation/check` answers.
package struct CheckResult: Encodable {
    package var action: String
    package var rules: [VerdictRule]
    package var masked_text: String?
    package var observed: [VerdictRule]

    package init(_ verdict: Verdict) {
        action = verdict.action?.rawValue ?? "none"
        rules = verdict.rules.map(VerdictRule.init)
        masked_text = verdict.maskedText
        observed = verdict.observed.map(VerdictRule.init)
    }
}

/// A matching rule as `moderation.rules` shows it.
package struct VerdictRule: Codable, Sendable, Equatable {
    package var id: String
    package var name: String
    package var kind: String
    package var action: String?
    package var matched: [MatchSpan]

    package init(_ match: Verdict.RuleMatch) {
        id = match.ruleID
        name = match.name
        kind = match.kind.rawValue
        action = match.action?.rawValue
        matched = match.matched
    }
}
