import BouncerDomain
import Foundation

/// Judges a message by the rate rules (`flood`, `mentions`, `links`): the part of each that looks
/// at this message alone, and, for a send, the part that looks at what the sender sent within the
/// rule's window, kept in a `RateLedger`.
public struct RateRules: Sendable {
    public let ledger: any RateLedger

    public init(ledger: any RateLedger) {
        self.ledger = ledger
    }

    public typealias Matches = (rules: [Verdict.RuleMatch], observed: [Verdict.RuleMatch])

    /// The matches of the rate rules that apply to a message sent by `sender` to `channel`,
    /// enforced and observed, which counts toward their windows. `completion` may run before this
    /// returns (a ledger in memory), or on the ledger's queue. `normalizedWords`: the `words` of the
    /// text's normalized form, when the caller made it already.
    /// A ledger that cannot answer fails the judgement with its error.
    public func judgeSend(_ text: String, normalizedWords: [UInt8]?, rules: [RuleDefinition], channel: String?, sender: SenderFacts,
                   completion: @escaping @Sendable (Result<Matches, any Error>) -> Void) {
        let applying = Self.applying(rules, channel: channel, sender: sender)
        guard !applying.isEmpty else { return completion(.success(([], []))) }
        let features = Self.features(text, normalizedWords: normalizedWords, applying)
        let now = Date().timeIntervalSince1970
        // At most one mark a rule: room for them all at once.
        var marks: [RateMark] = []
        marks.reserveCapacity(applying.count)
        var marked: [Int] = []  // the index in `applying` of each mark's rule
        marked.reserveCapacity(applying.count)
        // The rules by index, here and below: a rule bound to a name of its own is a copy, each of
        // its strings and arrays retained and released, for every message.
        for index in applying.indices {
            guard let mark = Self.mark(applying[index].params, ruleID: applying[index].id, features, userID: sender.userID, at: now)
            else { continue }
            marks.append(mark)
            marked.append(index)
        }
        guard !marks.isEmpty else { return completion(.success(Self.matches(applying, features, text: text))) }
        if let earlier = ledger.recordAtOnce(marks) {
            return completion(.success(Self.matches(applying, features, text: text, marked: marked, earlier: earlier)))
        }
        ledger.record(marks) { [marked] earlier in
            completion(earlier.map { Self.matches(applying, features, text: text, marked: marked, earlier: $0) })
        }
    }

    /// The matches of the rate rules that apply, judging the text alone, at once: for an edit,
    /// `moderation/check` (no sender: every rule applies) and a dry run. Floods and link windows,
    /// which need the sender's earlier messages, do not match.
    public static func judgeAlone(_ text: String, normalizedWords: [UInt8]? = nil, rules: [RuleDefinition], channel: String?,
                           sender: SenderFacts?) -> Matches {
        let applying = applying(rules, channel: channel, sender: sender)
        guard !applying.isEmpty else { return ([], []) }
        return matches(applying, features(text, normalizedWords: normalizedWords, applying), text: text)
    }

    private static func applying(_ rules: [RuleDefinition], channel: String?, sender: SenderFacts?) -> [RuleDefinition] {
        // Most often all apply: the same array then, not a copy of every rule.
        if rules.indices.allSatisfy({ rules[$0].applies(to: channel) && rules[$0].applies(to: sender) }) { return rules }
        return rules.filter { $0.applies(to: channel) && $0.applies(to: sender) }
    }

    /// What the applying rules read of the text, and only that.
    private static func features(_ text: String, normalizedWords: [UInt8]?, _ applying: [RuleDefinition]) -> MessageFeatures {
        var parts: MessageFeatures.Parts = []
        for index in applying.indices {
            switch applying[index].kind {
            case .flood: parts.insert(.likeness)
            case .mentions: parts.insert(.mentions)
            case .links: parts.insert(.links)
            default: break
            }
        }
        return MessageFeatures(text, normalizedWords: normalizedWords, parts: parts)
    }

    /// The rules that matched, given the earlier kin of each mark (`earlier[i]`, of the rule at
    /// `marked[i]` in `applying`).
    private static func matches(_ applying: [RuleDefinition], _ features: MessageFeatures, text: String,
                                marked: [Int] = [], earlier: [[EarlierMark]] = []) -> Matches {
        var enforced: [Verdict.RuleMatch] = [], observed: [Verdict.RuleMatch] = []
        for index in applying.indices {
            let kin = marked.firstIndex(of: index).map { earlier[$0] } ?? []
            guard let spans = matched(applying[index].params, features, text: text, earlier: kin) else { continue }
            let rule = applying[index]
            let match = Verdict.RuleMatch(ruleID: rule.id, name: rule.name, kind: rule.kind, action: rule.action,
                                          priority: rule.priority, matched: spans)
            if rule.mode == .enforce { enforced.append(match) } else { observed.append(match) }
        }
        return (enforced, observed)
    }

    /// What a rule with `params` notes of this message for later ones; nil for a rule without a window.
    private static func mark(_ params: RuleParams?, ruleID: String, _ features: MessageFeatures, userID: String, at now: Double) -> RateMark? {
        switch params {
        case .flood(let threshold, let window, .identical)?:
            return RateMark(userID: userID, ruleID: ruleID, keys: [features.fingerprint], weight: 1, sketch: [], at: now,
                            window: Double(window), keep: floodMarks(threshold))
        case .flood(let threshold, let window, .similar)?:
            // Identical texts share every band; short ones have none, only their fingerprint.
            return RateMark(userID: userID, ruleID: ruleID, keys: features.bands.isEmpty ? [features.fingerprint] : features.bands, weight: 1,
                            sketch: features.sketch, at: now, window: Double(window), keep: floodMarks(threshold))
        case .links(_, let window?)? where !features.links.isEmpty:
            // A message without links adds nothing to the window, and is never caught by it.
            return RateMark(userID: userID, ruleID: ruleID, keys: [0], weight: features.links.count, sketch: [], at: now,
                            window: Double(window))
        default:
            return nil
        }
    }

    /// A flood rule keeps a sender's last marks, enough for its threshold with as many other
    /// messages again between them, and no fewer than 64: a flood diluted further than that within
    /// the window goes uncounted, and memory stays in proportion to what the rule asks.
    private static func floodMarks(_ threshold: Int) -> Int { max(64, 4 * threshold) }

    /// Where a rule with `params` matched, or nil when it did not.
    private static func matched(_ params: RuleParams?, _ features: MessageFeatures, text: String,
                                earlier: [EarlierMark]) -> [MatchSpan]? {
        switch params {
        case .flood(let threshold, _, let similarity)?:
            // A band shared is a candidate; the sketches confirm it (or the text is the same).
            let kin = similarity == .identical ? earlier.count : earlier.count { $0.likeness >= MessageFeatures.similarityThreshold }
            return kin + 1 >= threshold ? [MatchSpan.wholeText(text)] : nil
        case .mentions(let max)?:
            return features.mentions.count > max ? Array(features.mentions.prefix(CompiledRuleSet.maxReportedSpans)) : nil
        case .links(let max, let window)?:
            let inWindow = window == nil ? 0 : earlier.reduce(0) { $0 + $1.weight }
            guard features.links.count > max || (features.links.count > 0 && inWindow + features.links.count > max) else { return nil }
            return Array(features.links.prefix(CompiledRuleSet.maxReportedSpans))
        case .score?, nil:
            return nil
        }
    }
}
