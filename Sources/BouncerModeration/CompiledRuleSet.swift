import BouncerDomain
import Dispatch
import Foundation
import CVectorscan
import Locking

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

    public let rules: [RuleDefinition]
    private let entries: [Entry]
    /// Word and phrase literals, in shards compiled side by side when there are many.
    private let wordsDatabases: [(database: Database, ids: [Int])]
    private let foldedLiteralDatabase: Database?
    private let regexDatabase: Database?
    /// Says whether any regex matches at all, before `regexDatabase` finds where.
    private let regexFilter: Database?
    /// The `word` rules' words, for words with masked letters (`f*ck`).
    private let maskedWords: MaskedWords
    private let scratch: ScratchPool
    /// Ids of the `entries` of each database, by the id vectorscan reports.
    private let foldedLiteralIDs: [Int]
    private let regexIDs: [Int]
    public let compileDuration: Duration

    public var ruleCount: Int { rules.count }

    /// The enabled rate rules, which the text's matches do not judge (see `RateRules`).
    public let rateRules: [RuleDefinition]
    /// The enabled score rules, judged by the classifier's scores (see `ScoreRules`).
    public let scoreRules: [RuleDefinition]
    /// Whether some enabled rule applies only to new users, so a send must know its sender's age.
    public let asksSenderAge: Bool

    /// Compiles the enabled rules. Throws the first rule whose pattern cannot be used.
    /// `inflections`: whether `word` rules match inflections when they do not say (the rule set's
    /// setting; see `RuleDefinition.inflections`).
    /// `store`: where compiled databases are loaded from and saved to (see `CompiledDatabaseStore`).
    public static func compile(_ rules: [RuleDefinition], inflections: Bool = true,
                               store: (any CompiledDatabaseStore)? = nil) throws(Refusal) -> CompiledRuleSet {
        let started = ContinuousClock.now
        let entries = try prepare(rules, inflections: inflections)
        var wordsIDs: [Int] = [], foldedIDs: [Int] = [], regexIDs: [Int] = []
        var wordsLiterals: [[UInt8]] = [], foldedLiterals: [[UInt8]] = [], regexes: [String] = []
        var maskedWords = MaskedWords()
        for (id, entry) in entries.enumerated() {
            switch entry.pattern.form {
            case .words(let literal, let runs, let left, let right, let inflection):
                wordsIDs.append(id)
                wordsLiterals.append(literal)
                if left && right && rules[entry.rule].kind == .word {
                    var letters: [UInt8] = []
                    letters.reserveCapacity(literal.count + 2)
                    for (byte, run) in zip(literal, runs) { for _ in 0..<run { letters.append(byte) } }
                    if inflection == .stemOfEWord { letters.append(UInt8(ascii: "e")) }
                    maskedWords.add(MaskedWords.Listed(letters: letters, entry: id, inflects: inflection != .none))
                }
            case .domain(let literal), .email(let literal, _):
                foldedIDs.append(id)
                foldedLiterals.append(literal)
            case .regex(let pattern):
                regexIDs.append(id)
                regexes.append(pattern)
            }
        }
        let words: [(database: Database, ids: [Int])]
        let folded: Database?
        do {
            words = try Self.compileShards(wordsLiterals, ids: wordsIDs, store: store)
            folded = try Database.literals(foldedLiterals, store: store)
        } catch {
            // Literals were checked one by one already; this is vectorscan refusing the set.
            throw Refusal(index: 0, ruleID: rules.first?.id ?? "", reason: error.message)
        }
        let regex: Database?, filter: Database?
        do {
            regex = try Database.regexes(regexes, store: store)
            filter = try Database.regexFilter(regexes, store: store)
        } catch {
            let ruleIndex = error.expression.map { entries[regexIDs[$0]].rule } ?? 0
            throw Refusal(index: ruleIndex, ruleID: rules[ruleIndex].id, reason: error.message)
        }
        return CompiledRuleSet(rules: rules, entries: entries, words: words, folded: folded, regex: regex, filter: filter, masked: maskedWords,
                               foldedIDs: foldedIDs, regexIDs: regexIDs, duration: ContinuousClock.now - started)
    }

    private init(rules: [RuleDefinition], entries: [Entry], words: [(database: Database, ids: [Int])], folded: Database?,
                 regex: Database?, filter: Database?, masked: MaskedWords, foldedIDs: [Int], regexIDs: [Int], duration: Duration) {
        self.rules = rules
        self.entries = entries
        self.maskedWords = masked
        self.wordsDatabases = words
        self.foldedLiteralDatabase = folded
        self.regexDatabase = regex
        self.regexFilter = filter
        self.foldedLiteralIDs = foldedIDs
        self.regexIDs = regexIDs
        self.compileDuration = duration
        self.rateRules = rules.filter { $0.enabled && $0.kind.isRate }
        self.scoreRules = rules.filter { $0.enabled && $0.kind == .score }
        self.asksSenderAge = rules.contains { $0.enabled && $0.newUsersOnlySeconds != nil }
        self.scratch = ScratchPool(databases: words.map(\.database) + [folded, regex, filter].compactMap { $0 })
    }

    /// Every enabled rule's pattern, prepared on all cores (normalizing 100,000 patterns one
    /// by one would take a good part of the compile time).
    private static func prepare(_ rules: [RuleDefinition], inflections: Bool) throws(Refusal) -> [Entry] {
        let chunkCount = rules.count < 2000 ? 1 : max(1, min(8, ProcessInfo.processInfo.activeProcessorCount))
        let chunkSize = (rules.count + chunkCount - 1) / max(1, chunkCount)
        let results = Locked<[Int: Result<[Entry], Refusal>]>([:])
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            var prepared: [Entry] = []
            var refusal: Refusal?
            // Rate rules match no pattern: `RateRules` judges them.
            for index in (chunk * chunkSize)..<min(rules.count, (chunk + 1) * chunkSize) where rules[index].enabled && !rules[index].kind.takesParams {
                do {
                    let rule = rules[index]
                    let inflects = rule.kind == .word && (rule.inflections ?? inflections)
                    prepared.append(Entry(rule: index, pattern: try PatternCompiler.prepare(kind: rule.kind, pattern: rule.pattern,
                                                                                            inflections: inflects)))
                    for form in inflects ? Inflection.extraForms(of: rule.pattern.lowercased()) : [] {
                        if let pattern = try? PatternCompiler.prepare(kind: rule.kind, pattern: form) {
                            prepared.append(Entry(rule: index, pattern: pattern))
                        }
                    }
                } catch let error as PatternError {
                    refusal = Refusal(index: index, ruleID: rules[index].id, reason: error.reason)
                    break
                } catch {
                    refusal = Refusal(index: index, ruleID: rules[index].id, reason: "\(error)")
                    break
                }
            }
            let result: Result<[Entry], Refusal> = refusal.map { .failure($0) } ?? .success(prepared)
            results.withLock { $0[chunk] = result }
        }
        var entries: [Entry] = []
        entries.reserveCapacity(rules.count)
        for chunk in 0..<chunkCount {
            switch results.withLock({ $0[chunk] }) {
            case .success(let prepared)?: entries.append(contentsOf: prepared)
            case .failure(let refusal)?: throw refusal
            case nil: break
            }
        }
        return entries
    }

    /// Spans reported per rule in a verdict (all of them count for the verdict and the mask): a
    /// text can match a rule thousands of times, and the answer should not carry them all.
    public static let maxReportedSpans = 100

    /// Sorted, merged ranges (`start..<end`) covering what `ranges` cover.
    static func disjoint(_ ranges: [(Int, Int)]) -> [(start: Int, end: Int)] {
        var merged: [(start: Int, end: Int)] = []
        for (start, end) in ranges.sorted(by: { $0.0 < $1.0 }) {
            if let last = merged.last, start <= last.end {
                merged[merged.count - 1].end = max(last.end, end)
            } else {
                merged.append((start, end))
            }
        }
        return merged
    }

    /// Whether `span` overlaps any of the sorted, disjoint `ranges` (binary search).
    static func overlaps(_ span: ClosedRange<Int>, _ ranges: [(start: Int, end: Int)]) -> Bool {
        var low = 0, high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].end <= span.lowerBound { low = middle + 1 } else { high = middle }
        }
        return low < ranges.count && ranges[low].start <= span.upperBound
    }

    /// Literals per shard of the words database. Compiling grows with the number of literals
    /// (about 0.8 s for 25,000 here), so a large list is cut into shards compiled on all cores;
    /// each shard costs one more pass over a message, so shards stay large.
    static let literalsPerShard = 50_000

    private static func compileShards(_ literals: [[UInt8]], ids: [Int],
                                      store: (any CompiledDatabaseStore)?) throws(Database.CompileError) -> [(database: Database, ids: [Int])] {
        guard !literals.isEmpty else { return [] }
        // Rounded, not up: a list a little over a multiple of the size (100,000 words and the verb
        // forms of a few) should not pay a whole extra pass for it.
        let shardCount = max(1, Int((Double(literals.count) / Double(literalsPerShard)).rounded()))
        let size = (literals.count + shardCount - 1) / shardCount
        let results = Locked<[Int: Result<Database?, Database.CompileError>]>([:])
        DispatchQueue.concurrentPerform(iterations: shardCount) { shard in
            let range = (shard * size)..<min(literals.count, (shard + 1) * size)
            let result = Result { () throws(Database.CompileError) -> Database? in try Database.literals(Array(literals[range]), store: store) }
            results.withLock { $0[shard] = result }
        }
        var shards: [(database: Database, ids: [Int])] = []
        for shard in 0..<shardCount {
            let range = (shard * size)..<min(literals.count, (shard + 1) * size)
            guard let database = try results.withLock({ $0[shard]! }).get() else { continue }
            shards.append((database, Array(ids[range])))
        }
        return shards
    }

    private var databases: [Database] {
        wordsDatabases.map(\.database) + [foldedLiteralDatabase, regexDatabase, regexFilter].compactMap { $0 }
    }

    /// Bytes of compiled databases.
    public var databaseSize: Int { databases.map(\.size).reduce(0, +) }

    /// How many of the set's databases were loaded from the store, and how many there are.
    public var databasesLoaded: (loaded: Int, total: Int) { (databases.filter(\.wasLoaded).count, databases.count) }

    // MARK: - Checking

    /// The verdict of the text rules for `text` sent to `channel` by `sender` (nil: every rule
    /// applies).
    public func check(_ text: String, channel: String? = nil, sender: SenderFacts? = nil) -> Verdict {
        guard !entries.isEmpty else { return .none }
        return check(NormalizedText(text), channel: channel, sender: sender)
    }

    /// The same, for a text normalized already (a caller that needs its normalized form too).
    public func check(_ normalized: NormalizedText, channel: String? = nil, sender: SenderFacts? = nil) -> Verdict {
        guard !entries.isEmpty else { return .none }
        var hits: [(entry: Int, start: Int, end: Int)] = []  // original character offsets
        let collector = MatchCollector()
        scratch.with { scratch in
            for (database, ids) in wordsDatabases {
                database.scan(normalized.words, scratch: scratch, into: collector)
                for (id, _, end) in collector.matches {
                    let entryIndex = ids[id]
                    guard case .words(let literal, let runs, let left, let right, let inflection) = entries[entryIndex].pattern.form else { continue }
                    let start = end - literal.count
                    guard let matchEnd = Self.wordMatchEnd(normalized, literal, start, end, runs: runs, left: left, right: right,
                                                           inflection: inflection) else { continue }
                    hits.append((entryIndex, Int(normalized.wordBytes[start].start), Int(normalized.wordBytes[matchEnd - 1].end)))
                }
            }
            if normalized.hasMaskSymbols && !maskedWords.isEmpty {
                for (entryIndex, start, end) in maskedWords.matches(in: normalized.folded) {
                    hits.append((entryIndex, Int(normalized.foldedOrigin[start]), Int(normalized.foldedOrigin[end - 1]) + 1))
                }
            }
            if let database = foldedLiteralDatabase {
                database.scan(normalized.folded, scratch: scratch, into: collector)
                for (id, _, end) in collector.matches {
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
            if let database = regexDatabase, regexFilter?.anyMatch(normalized.folded, scratch: scratch) == true {
                database.scanStreaming(normalized.folded, scratch: scratch, into: collector)
                for (id, start, end) in collector.matches where end > start {
                    hits.append((regexIDs[id], Int(normalized.foldedOrigin[start]), Int(normalized.foldedOrigin[end - 1]) + 1))
                }
            }
        }
        return verdict(from: hits, in: normalized, channel: channel, sender: sender)
    }

    /// A literal found in the `words` form is a match when it stands as whole words (unless a
    /// wildcard opens that side, or an inflection follows when the rule takes them) and every
    /// repeated letter of the pattern is repeated in the text at least as often (so `ass` does not
    /// match `as`, while `fuuuck` matches `fuck`). Returns where the match ends (after the
    /// inflection, when there is one), or nil.
    private static func wordMatchEnd(_ text: NormalizedText, _ literal: [UInt8], _ start: Int, _ end: Int, runs: [UInt16],
                                     left: Bool, right: Bool, inflection: WordInflection) -> Int? {
        if left && start > 0 && text.words[start - 1] != 32 { return nil }
        var matchEnd = end
        switch inflection {
        case .stemOfEWord:
            guard let wordEnd = Inflection.end(afterStem: literal, in: text, at: end) else { return nil }
            matchEnd = wordEnd
        case .suffixes where right && end < text.words.count && text.words[end] != 32:
            guard let inflectionEnd = Inflection.end(afterWordEndingIn: literal.count >= 2 ? literal[literal.count - 2] : 0,
                                                     literal[literal.count - 1], in: text, at: end) else { return nil }
            matchEnd = inflectionEnd
        case .none, .suffixes:
            if right && end < text.words.count && text.words[end] != 32 { return nil }
        }
        for offset in 0..<runs.count where text.wordBytes[start + offset].run < runs[offset] {
            // A run at either end of an unbounded side may continue past the match.
            return nil
        }
        return matchEnd
    }

    private func verdict(from hits: [(entry: Int, start: Int, end: Int)], in text: NormalizedText, channel: String?,
                         sender: SenderFacts?) -> Verdict {
        guard !hits.isEmpty else { return .none }
        var allowed: [(Int, Int)] = []
        var found: [Int: Set<ClosedRange<Int>>] = [:]  // rule index -> original spans (as start...end-1)
        for hit in hits {
            let rule = rules[entries[hit.entry].rule]
            guard rule.applies(to: channel), rule.applies(to: sender), hit.end > hit.start else { continue }
            // An observed allow rule is counted, not obeyed: it exempts nothing.
            if rule.kind == .allow && rule.mode == .enforce {
                allowed.append((hit.start, hit.end))
            } else {
                found[entries[hit.entry].rule, default: []].insert(hit.start...(hit.end - 1))
            }
        }
        let exempt = Self.disjoint(allowed)
        let reader = SpanReader(text.original)
        var matches: [Verdict.RuleMatch] = []
        var observed: [Verdict.RuleMatch] = []
        var maskedRanges: [ClosedRange<Int>] = []
        for (ruleIndex, spans) in found {
            let kept = spans.filter { !Self.overlaps($0, exempt) }
                .sorted { ($0.lowerBound, $0.upperBound) < ($1.lowerBound, $1.upperBound) }
            guard !kept.isEmpty else { continue }
            let rule = rules[ruleIndex]
            // Every span counts for the verdict and the mask; the first are reported.
            let matched = kept.prefix(Self.maxReportedSpans).map { reader.span($0.lowerBound, $0.upperBound + 1) }
            let match = Verdict.RuleMatch(ruleID: rule.id, name: rule.name, kind: rule.kind, action: rule.action,
                                          priority: rule.priority, matched: Array(matched))
            guard rule.mode == .enforce else {
                observed.append(match)
                continue
            }
            if rule.action == .maskFlag { maskedRanges.append(contentsOf: kept) }
            matches.append(match)
        }
        guard !matches.isEmpty || !observed.isEmpty else { return .none }
        matches.sort(by: Verdict.RuleMatch.precedes)
        observed.sort(by: Verdict.RuleMatch.precedes)
        let action = matches.first?.action
        var masked: String?
        if action == .maskFlag {
            // Each character under any masked span once: spans may overlap by the thousand.
            var scalars = reader.scalars
            var index = 0
            for range in Self.disjoint(maskedRanges.map { ($0.lowerBound, $0.upperBound + 1) }) {
                index = max(index, range.start)
                while index < range.end {
                    if !scalars[index].properties.isWhitespace { scalars[index] = "*" }
                    index += 1
                }
            }
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars)
            masked = String(view)
        }
        return Verdict(action: action, rules: matches, observed: observed, maskedText: masked)
    }
}
