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

/// A text's scores as JSON: `{"toxicity":0.93}`, each rounded to four decimals, in the model's
/// order of attributes. Kept as the two arrays the model gives: every judged message makes one.
package struct ScoresJSON: Codable, Sendable, Equatable {
    package var attributes: [String]
    package var values: [Double]

    package init(_ scores: HarmScores) {
        attributes = scores.attributes
        values = scores.values.map(Self.rounded)
    }

    package static func rounded(_ score: Double) -> Double { (score * 10_000).rounded() / 10_000 }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        attributes = container.allKeys.map(\.stringValue)
        values = try container.allKeys.map { try container.decode(Double.self, forKey: $0) }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (attribute, value) in zip(attributes, values) { try container.encode(value, forKey: Key(stringValue: attribute)) }
    }

    /// Written by hand: it is part of every message's stored verdict.
    package func append(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for index in attributes.indices {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(attributes[index], to: &out)
            out.append(UInt8(ascii: ":"))
            JSONText.appendNumber(values[index], to: &out)
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
