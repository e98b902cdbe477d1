import BouncerModeration
import BouncerStore
import Foundation
import HTTPServer

/// What `POST /v1/moderation/check` answers.
struct CheckResult: Encodable {
    var action: String
    var rules: [VerdictRule]
    var masked_text: String?
    var observed: [VerdictRule]

    init(_ verdict: Verdict) {
        action = verdict.action?.rawValue ?? "none"
        rules = verdict.rules.map(VerdictRule.init)
        masked_text = verdict.maskedText
        observed = verdict.observed.map(VerdictRule.init)
    }
}

/// A matching rule as `moderation.rules` shows it.
struct VerdictRule: Codable, Sendable, Equatable {
    var id: String
    var name: String
    var kind: String
    var action: String?
    var matched: [MatchSpan]

    init(_ match: Verdict.RuleMatch) {
        id = match.ruleID
        name = match.name
        kind = match.kind.rawValue
        action = match.action?.rawValue
        matched = match.matched
    }
}
