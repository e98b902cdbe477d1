import CVectorscan
import Synchronization

/// A rule set compiled into vectorscan databases: every rule of a kind is matched in one pass,
/// so the cost of checking a message does not grow with the number of rules. Immutable: rule
/// changes compile a new set, and each check runs against one whole set.
public final class CompiledRuleSet: Sendable {
    public struct Refusal: Error, Sendable, Equatable {
        /// Index of the refused rule in the list given to `compile`.
        public var index: Int
        public var ruleID: String
        public var reason: String
    }

    static let regexFlags: UInt32 = cvs_flag_som_leftmost() | cvs_flag_utf8() | cvs_flag_caseless()
    /// Most matches gathered from one message; a text that matches more is judged on these.
    static let maxMatches = 4096

    private struct Entry: Sendable {
        var rule: Int
        var pattern: PreparedPattern
    }

    let rules: [RuleDefinition]
    private let entries: [Entry]
    private let wordsDatabase: Database?
    private let foldedLiteralDatabase: Database?
    private let regexDatabase: Database?
    private let scratch: ScratchPool
    /// Ids of the `entries` of each database, by the id vectorscan reports.
    private let wordsIDs: [Int]
    private let foldedLiteralIDs: [Int]
    private let regexIDs: [Int]
    public let compileDuration: Duration

    public var ruleCount: Int { rules.count }

    /// Compiles the enabled rules. Throws the first rule whose pattern cannot be used.
    public static func compile(_ rules: [RuleDefinition]) throws(Refusal) -> CompiledRuleSet {
        let started = ContinuousClock.now
        var entries: [Entry] = []
        entries.reserveCapacity(rules.count)
        for (index, rule) in rules.enumerated() where rule.enabled {
            do {
                entries.append(Entry(rule: index, pattern: try PatternCompiler.prepare(kind: rule.kind, pattern: rule.pattern)))
            } catch {
                throw Refusal(index: index, ruleID: rule.id, reason: error.reason)
            }
        }
        var wordsIDs: [Int] = [], foldedIDs: [Int] = [], regexIDs: [Int] = []
        var wordsLiterals: [[UInt8]] = [], foldedLiterals: [[UInt8]] = [], regexes: [String] = []
        for (id, entry) in entries.enumerated() {
            switch entry.pattern.form {
            case .words(let literal, _, _, _):
                wordsIDs.append(id)
                wordsLiterals.append(literal)
            case .domain(let literal), .email(let literal, _):
                foldedIDs.append(id)
                foldedLiterals.append(literal)
            case .regex(let pattern):
                regexIDs.append(id)
                regexes.append(pattern)
            }
        }
        do {
            let words = try Database.literals(wordsLiterals)
            let folded = try Database.literals(foldedLiterals)
            let regex = try Database.regexes(regexes)
            return CompiledRuleSet(rules: rules, entries: entries, words: words, folded: folded, regex: regex,
                                   wordsIDs: wordsIDs, foldedIDs: foldedIDs, regexIDs: regexIDs,
                                   duration: ContinuousClock.now - started)
        } catch {
            let ruleIndex = error.expression.flatMap { expression in
                regexIDs.indices.contains(expression) ? entries[regexIDs[expression]].rule : nil
            } ?? 0
            throw Refusal(index: ruleIndex, ruleID: rules.indices.contains(ruleIndex) ? rules[ruleIndex].id : "",
                          reason: error.message)
        }
    }

    private init(rules: [RuleDefinition], entries: [Entry], words: Database?, folded: Database?, regex: Database?,
                 wordsIDs: [Int], foldedIDs: [Int], regexIDs: [Int], duration: Duration) {
        self.rules = rules
        self.entries = entries
        self.wordsDatabase = words
        self.foldedLiteralDatabase = folded
        self.regexDatabase = regex
        self.wordsIDs = wordsIDs
        self.foldedLiteralIDs = foldedIDs
        self.regexIDs = regexIDs
        self.compileDuration = duration
        self.scratch = ScratchPool(databases: [words, folded, regex].compactMap { $0 })
    }

    /// Bytes of compiled databases.
    public var databaseSize: Int {
        [wordsDatabase, foldedLiteralDatabase, regexDatabase].compactMap { $0?.size }.reduce(0, +)
    }

    // MARK: - Checking

    /// The verdict for `text` sent to `channel` (nil: every rule applies).
    public func check(_ text: String, channel: String? = nil) -> Verdict {
        guard !entries.isEmpty else { return .none }
        let normalized = NormalizedText(text)
        var hits: [(entry: Int, start: Int, end: Int)] = []  // original character offsets
        scratch.with { scratch in
            if let database = wordsDatabase {
                for (id, _, end) in database.scan(normalized.words, scratch: scratch) {
                    let entryIndex = wordsIDs[id]
                    guard case .words(let literal, let runs, let left, let right) = entries[entryIndex].pattern.form else { continue }
                    let start = end - literal.count
                    guard Self.isWordMatch(normalized, start, end, runs: runs, left: left, right: right) else { continue }
                    hits.append((entryIndex, Int(normalized.wordsStart[start]), Int(normalized.wordsEnd[end - 1])))
                }
            }
            if let database = foldedLiteralDatabase {
                for (id, _, end) in database.scan(normalized.folded, scratch: scratch) {
                    let entryIndex = foldedLiteralIDs[id]
                    var start: Int
                    switch entries[entryIndex].pattern.form {
                    case .domain(let literal):
                        start = end - literal.count
                        guard DomainBoundary.isWhole(normalized.folded, start, end) else { continue }
                    case .email(let literal, let anyLocalPart):
                        start = end - literal.count
                        let domainStart = start + (literal.lastIndex(of: UInt8(ascii: "@")) ?? 0) + 1
                        if anyLocalPart {
                            while start > 0 && EmailBoundary.isLocalPartByte(normalized.folded[start - 1]) { start -= 1 }
                            guard start < end - literal.count else { continue }
                        } else if start > 0 && EmailBoundary.isLocalPartByte(normalized.folded[start - 1]) {
                            continue
                        }
                        guard DomainBoundary.isWhole(normalized.folded, domainStart, end) else { continue }
                    default:
                        continue
                    }
                    hits.append((entryIndex, Int(normalized.foldedOrigin[start]), Int(normalized.foldedOrigin[end - 1]) + 1))
                }
            }
            if let database = regexDatabase {
                for (id, start, end) in database.scan(normalized.folded, scratch: scratch) where end > start {
                    hits.append((regexIDs[id], Int(normalized.foldedOrigin[start]), Int(normalized.foldedOrigin[end - 1]) + 1))
                }
            }
        }
        return verdict(from: hits, in: normalized, channel: channel)
    }

    /// A literal found in the `words` form is a match when it stands as whole words (unless a
    /// wildcard opens that side) and every repeated letter of the pattern is repeated in the text
    /// at least as often (so `ass` does not match `as`, while `fuuuck` matches `fuck`).
    private static func isWordMatch(_ text: NormalizedText, _ start: Int, _ end: Int, runs: [UInt16], left: Bool, right: Bool) -> Bool {
        if left && start > 0 && text.words[start - 1] != 32 { return false }
        if right && end < text.words.count && text.words[end] != 32 { return false }
        for offset in 0..<runs.count where text.runs[start + offset] < runs[offset] {
            // A run at either end of an unbounded side may continue past the match.
            return false
        }
        return true
    }

    private func verdict(from hits: [(entry: Int, start: Int, end: Int)], in text: NormalizedText, channel: String?) -> Verdict {
        guard !hits.isEmpty else { return .none }
        var allowed: [(Int, Int)] = []
        var found: [Int: Set<ClosedRange<Int>>] = [:]  // rule index -> original spans (as start...end-1)
        for hit in hits {
            let rule = rules[entries[hit.entry].rule]
            guard rule.applies(to: channel), hit.end > hit.start else { continue }
            if rule.kind == .allow {
                allowed.append((hit.start, hit.end))
            } else {
                found[entries[hit.entry].rule, default: []].insert(hit.start...(hit.end - 1))
            }
        }
        var matches: [Verdict.RuleMatch] = []
        for (ruleIndex, spans) in found {
            let kept = spans.filter { span in !allowed.contains { $0.0 <= span.upperBound && span.lowerBound < $0.1 } }
            guard !kept.isEmpty else { continue }
            let rule = rules[ruleIndex]
            let matched = kept.sorted { ($0.lowerBound, $0.upperBound) < ($1.lowerBound, $1.upperBound) }
                .map { text.span(scalars: $0.lowerBound, $0.upperBound + 1) }
            matches.append(Verdict.RuleMatch(ruleID: rule.id, name: rule.name, kind: rule.kind, action: rule.action,
                                             priority: rule.priority, matched: matched))
        }
        guard !matches.isEmpty else { return .none }
        matches.sort { a, b in
            let strengthA = a.action?.strength ?? Int.max, strengthB = b.action?.strength ?? Int.max
            if strengthA != strengthB { return strengthA < strengthB }
            if a.priority != b.priority { return a.priority > b.priority }
            if a.matched[0].start != b.matched[0].start { return a.matched[0].start < b.matched[0].start }
            return a.ruleID < b.ruleID
        }
        let action = matches.first?.action
        var masked: String?
        if action == .maskFlag {
            var scalars = Array(text.original.unicodeScalars)
            for match in matches where match.action == .maskFlag {
                for span in match.matched {
                    for index in span.start..<span.end where !scalars[index].properties.isWhitespace { scalars[index] = "*" }
                }
            }
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars)
            masked = String(view)
        }
        return Verdict(action: action, rules: matches, maskedText: masked)
    }
}
