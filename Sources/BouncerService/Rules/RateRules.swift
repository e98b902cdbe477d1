import BouncerDomain
import BouncerModeration
import BouncerStore
import Foundation

/// Judges a message by the rate rules (`flood`, `mentions`, `links`): the part of each that looks
/// at this message alone, and, for a send, the part that looks at what the sender sent within the
/// rule's window, kept in a `RateLedger`.
struct RateRules: Sendable {
    let ledger: any RateLedger

    /// What a message's sender and place are, for the rules that apply.
    struct Context: Sendable {
        var channel: String?
        var sender: SenderFacts?
        /// Whether the message is being sent (it counts toward windows), not edited or checked.
        var records: Bool
    }

    /// The matches of the rules of `ruleSet` that apply, enforced and observed. `completion` may
    /// run before this returns (a ledger in memory), or on the ledger's queue.
    /// `normalized`: the text's normalized form, when the caller made it already.
    func judge(_ text: String, normalized: NormalizedText? = nil, rules: [RuleDefinition], _ context: Context,
               completion: @escaping @Sendable (_ rules: [Verdict.RuleMatch], _ observed: [Verdict.RuleMatch]) -> Void) {
        let applying = rules.filter { $0.applies(to: context.channel) && $0.applies(to: context.sender) }
        guard !applying.isEmpty else { return completion([], []) }
        var parts: MessageFeatures.Parts = []
        for rule in applying {
            switch rule.kind {
            case .flood: parts.insert(.likeness)
            case .mentions: parts.insert(.mentions)
            case .links: parts.insert(.links)
            default: break
            }
        }
        let features = MessageFeatures(text, normalized: normalized, parts: parts)
        var marks: [RateMark] = []
        var marked: [Int] = []
        let now = Date().timeIntervalSince1970
        if context.records, let sender = context.sender {
            for (index, rule) in applying.enumerated() {
                guard let mark = Self.mark(rule, features, userID: sender.userID, at: now) else { continue }
                marks.append(mark)
                marked.append(index)
            }
        }
        let recorded = marked
        let decide: @Sendable ([[EarlierMark]]) -> Void = { earlier in
            var enforced: [Verdict.RuleMatch] = [], observed: [Verdict.RuleMatch] = []
            for (index, rule) in applying.enumerated() {
                let kin = recorded.firstIndex(of: index).map { earlier[$0] } ?? []
                guard let spans = Self.matched(rule, features, text: text, earlier: kin) else { continue }
                let match = Verdict.RuleMatch(ruleID: rule.id, name: rule.name, kind: rule.kind, action: rule.action,
                                              priority: rule.priority, matched: spans)
                if rule.mode == .enforce { enforced.append(match) } else { observed.append(match) }
            }
            completion(enforced, observed)
        }
        if marks.isEmpty { decide([]) } else { ledger.record(marks) { decide($0) } }
    }

    /// What `rule` notes of this message for later ones; nil for a rule without a window.
    private static func mark(_ rule: RuleDefinition, _ features: MessageFeatures, userID: String, at now: Double) -> RateMark? {
        switch rule.params {
        case .flood(let threshold, let window, .identical)?:
            return RateMark(userID: userID, ruleID: rule.id, keys: [features.fingerprint], weight: 1, sketch: [], at: now,
                            window: Double(window), keep: floodMarks(threshold))
        case .flood(let threshold, let window, .similar)?:
            // Identical texts share every band; short ones have none, only their fingerprint.
            return RateMark(userID: userID, ruleID: rule.id, keys: features.bands.isEmpty ? [features.fingerprint] : features.bands, weight: 1,
                            sketch: features.sketch, at: now, window: Double(window), keep: floodMarks(threshold))
        case .links(_, let window?)? where !features.links.isEmpty:
            // A message without links adds nothing to the window, and is never caught by it.
            return RateMark(userID: userID, ruleID: rule.id, keys: [0], weight: features.links.count, sketch: [], at: now,
                            window: Double(window))
        default:
            return nil
        }
    }

    /// A flood rule keeps a sender's last marks, enough for its threshold with as many other
    /// messages again between them, and no fewer than 64: a flood diluted further than that within
    /// the window goes uncounted, and memory stays in proportion to what the rule asks.
    private static func floodMarks(_ threshold: Int) -> Int { max(64, 4 * threshold) }

    /// Where `rule` matched, or nil when it did not.
    private static func matched(_ rule: RuleDefinition, _ features: MessageFeatures, text: String,
                                earlier: [EarlierMark]) -> [MatchSpan]? {
        switch rule.params {
        case .flood(let threshold, _, let similarity)?:
            let kin = similarity == .identical ? earlier.count : earlier.filter { mark in
                // A band shared is a candidate; the sketches confirm it (or the text is the same).
                mark.sketch.isEmpty ? true : MessageFeatures.similarity(mark.sketch, features.sketch) >= MessageFeatures.similarityThreshold
            }.count
            return kin + 1 >= threshold ? [wholeText(text)] : nil
        case .mentions(let max)?:
            return features.mentions.count > max ? Array(features.mentions.prefix(CompiledRuleSet.maxReportedSpans)) : nil
        case .links(let max, let window)?:
            let inWindow = window == nil ? 0 : earlier.reduce(0) { $0 + $1.weight }
            guard features.links.count > max || (features.links.count > 0 && inWindow + features.links.count > max) else { return nil }
            return Array(features.links.prefix(CompiledRuleSet.maxReportedSpans))
        case nil:
            return nil
        }
    }

    /// A flood's match: the whole message.
    private static func wholeText(_ text: String) -> MatchSpan {
        let scalars = text.unicodeScalars.count
        return MatchSpan(text: text, start: 0, end: scalars, utf16Start: 0, utf16End: text.utf16.count)
    }
}
