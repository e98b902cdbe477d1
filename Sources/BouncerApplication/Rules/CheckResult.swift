import BouncerModeration
import BouncerStore
import Foundation
import JSON

/// What `POST /v1/moderation/check` answers.
package struct CheckResult: Encodable {
    package var action: String
    package var rules: [VerdictRule]
    package var masked_text: String?
    package var observed: [VerdictRule]
    /// The classifier's scores (absent when no classifier is in force).
    package var scores: ScoresJSON?

    package init(_ verdict: Verdict) {
        action = verdict.action?.rawValue ?? "none"
        rules = verdict.rules.map(VerdictRule.init)
        masked_text = verdict.maskedText
        observed = verdict.observed.map(VerdictRule.init)
        scores = verdict.scores.isEmpty ? nil : ScoresJSON(verdict.scores)
    }
}

/// A text's scores as JSON: `{"toxicity":0.93}`, each rounded to four decimals.
package struct ScoresJSON: Codable, Sendable, Equatable {
    package var values: [String: Double]

    package init(_ scores: HarmScores) {
        values = Dictionary(uniqueKeysWithValues: zip(scores.attributes, scores.values.map(Self.rounded)))
    }

    package init(values: [String: Double]) { self.values = values }

    package static func rounded(_ score: Double) -> Double { (score * 10_000).rounded() / 10_000 }

    package init(from decoder: any Decoder) throws {
        values = try decoder.singleValueContainer().decode([String: Double].self)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(values)
    }

    /// Written by hand, in the attributes' order: it is part of every message's stored verdict.
    package func append(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (index, attribute) in values.keys.sorted().enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(attribute, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONText.appendNumber(values[attribute]!, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}

/// A matching rule as `moderation.rules` shows it.
package struct VerdictRule: Codable, Sendable, Equatable {
    package var id: String
    package var name: String
    package var kind: String
    package var action: String?
    package var matched: [MatchSpan]
    /// A score rule's attribute and the text's score for it.
    package var attribute: String?
    package var score: Double?

    package init(_ match: Verdict.RuleMatch) {
        id = match.ruleID
        name = match.name
        kind = match.kind.rawValue
        action = match.action?.rawValue
        matched = match.matched
        attribute = match.attribute
        score = match.score.map(ScoresJSON.rounded)
    }
}
