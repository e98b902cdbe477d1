import BouncerLocalization
import BouncerModeration
import BouncerStore
import Foundation
import JSON

/// The verdict kept with a message, as `moderation` shows it.
package struct ModerationRecord: Codable, Sendable, Equatable {
    package var action: String
    package var rules: [VerdictRule]
    package var original_text: String
    package var flagged: Bool
    /// The rules in observe mode that matched (absent when none did): for moderators only.
    package var observed: [VerdictRule]?
    /// The classifier's scores (absent without a classifier): for moderators only.
    package var scores: ScoresJSON?

    package init(verdict: Verdict, originalText: String, flagged: Bool) {
        action = verdict.action?.rawValue ?? "none"
        rules = verdict.rules.map(VerdictRule.init)
        original_text = originalText
        self.flagged = flagged
        observed = verdict.observed.isEmpty ? nil : verdict.observed.map(VerdictRule.init)
        scores = verdict.scores.isEmpty ? nil : ScoresJSON(verdict.scores)
    }

    /// The record as the message's author sees it: without what observed rules found, and
    /// without scores; a score rule's entry without its score.
    package static func forAuthor(_ stored: String) -> String {
        guard stored.utf8.count > 12, mentions(#""observed":"#, stored) || mentions(#""scores":"#, stored) || mentions(#""score":"#, stored),
              var record = decode(stored) else { return stored }
        record.observed = nil
        record.scores = nil
        for index in record.rules.indices { record.rules[index].score = nil }
        return record.json
    }

    /// Whether the stored record has `key` in its bytes: every moderated send's answer asks.
    /// (The standard library's `contains` of one collection in another is generic code that
    /// builds a searcher, and looks up type metadata, at each call: nearly 6% of the server's
    /// samples in a send benchmark.)
    private static func mentions(_ key: StaticString, _ stored: String) -> Bool {
        var stored = stored
        return stored.withUTF8 { bytes in
            key.withUTF8Buffer { key in
                guard bytes.count >= key.count else { return false }
                return (0...(bytes.count - key.count)).contains { start in
                    bytes[start] == key[0] && memcmp(bytes.baseAddress! + start, key.baseAddress!, key.count) == 0
                }
            }
        }
    }

    /// The stored form, written by hand: it is built for every moderated message as it is sent.
    /// `decode` reads it back (and anything `JSONEncoder` wrote before), with the strict parser.
    package var json: String {
        var out: [UInt8] = []
        out.reserveCapacity(128 + original_text.utf8.count)
        JSONText.appendMember(#"{"action":"#, action, to: &out)
        out.append(contentsOf: #","rules":"#.utf8)
        Self.append(rules, to: &out)
        JSONText.appendMember(#","original_text":"#, original_text, to: &out)
        out.append(contentsOf: (flagged ? #","flagged":true"# : #","flagged":false"#).utf8)
        if let observed {
            out.append(contentsOf: #","observed":"#.utf8)
            Self.append(observed, to: &out)
        }
        if let scores {
            out.append(contentsOf: #","scores":"#.utf8)
            scores.append(to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    private static func append(_ rules: [VerdictRule], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, rule) in rules.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendMember(#"{"id":"#, rule.id, to: &out)
            JSONText.appendMember(#","name":"#, rule.name, to: &out)
            JSONText.appendMember(#","kind":"#, rule.kind, to: &out)
            if let action = rule.action {
                JSONText.appendMember(#","action":"#, action, to: &out)
            }
            if let attribute = rule.attribute {
                JSONText.appendMember(#","attribute":"#, attribute, to: &out)
            }
            if let score = rule.score {
                out.append(contentsOf: #","score":"#.utf8)
                JSONText.appendNumber(score, to: &out)
            }
            out.append(contentsOf: #","matched":["#.utf8)
            for (spanIndex, span) in rule.matched.enumerated() {
                if spanIndex > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendMember(#"{"text":"#, span.text, to: &out)
                out.append(contentsOf: #","start":\#(span.start),"end":\#(span.end),"#.utf8)
                out.append(contentsOf: #""utf16_start":\#(span.utf16Start),"utf16_end":\#(span.utf16End)}"#.utf8)
            }
            out.append(contentsOf: "]}".utf8)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// Every rule a stored verdict names, enforced and observed: the rules a review of the
    /// message judges.
    package static func ruleIDs(_ stored: String?) -> [String] {
        guard let record = decode(stored) else { return [] }
        return record.rules.map(\.id) + (record.observed ?? []).map(\.id)
    }

    package static func decode(_ text: String?) -> ModerationRecord? {
        text.flatMap { try? JSONValue.decode(ModerationRecord.self, from: $0) }
    }
}
