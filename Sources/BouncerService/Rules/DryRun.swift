import BouncerApplication
import BouncerClassifier
import BouncerDomain
import BouncerModeration
import BouncerStore
import Foundation
import HTTPServer
import Locking

/// Runs candidate rules, as if added to the rules in force, over stored messages, and changes
/// nothing (`POST /v1/rules/dry-run`). Bounded: at most `maxLimit` messages, read newest first a
/// page at a time and matched on a thread of lower priority than the ones that serve sends, with
/// a store connection of its own, for at most `timeLimit`; one dry run at a time per instance.
/// Memory holds a page, the counts, and the samples.
final class DryRunner: Sendable {
    static let defaultLimit = 10_000
    static let maxLimit = 1_000_000
    static let maxCandidates = 100
    static let maxSamples = 20
    static let pageSize = 2_000
    static let timeLimit: Duration = .seconds(60)

    struct Report: Encodable {
        struct Sample: Encodable {
            var message_id, channel_id, text, action: String
            var matched: [MatchSpan]
        }

        var scanned = 0
        var matched = 0
        var changes: [String: Int] = [:]
        var samples: [Sample] = []
        var confirmed = 0
        var dismissed = 0
        @Nullable var precision: Double?
        /// False when the time limit ended the run before `limit` messages were read.
        var complete = true
        var milliseconds = 0
    }

    /// While sends come faster than this, a dry run rests between pages (see `scan`).
    static let busySendsPerSecond = 100.0
    /// How long it rests, against the time its last page took: working a fifth of the time.
    static let restPerWork = 4.0

    private let rules: Rules
    private let classifier: Classifier
    /// What the classifier in force scores: the attributes candidate score rules may name.
    var attributes: [String] { classifier.attributes }
    private let history: any MessageHistoryRepository
    /// Messages judged so far by the instance: tells the dry run how busy sends are.
    private let sendsSoFar: @Sendable () -> Int
    private let logger: Logger
    private let worker = LowPriorityWorker(label: "bouncer.rules.dry-run")
    private let running = Locked(false)

    init(rules: Rules, classifier: Classifier, history: any MessageHistoryRepository, sendsSoFar: @escaping @Sendable () -> Int = { 0 }, logger: Logger) {
        self.classifier = classifier
        self.rules = rules
        self.history = history
        self.sendsSoFar = sendsSoFar
        self.logger = logger
    }

    /// What the candidates that `candidates` makes (whose ids are their own, unlike any rule's)
    /// would have done to up to `limit` messages that `filter` selects. The one-at-a-time check
    /// comes first: making the candidates compiles each pattern, and that, the candidates' rule
    /// set and the scan all run on the dry run's own thread, within its time limit, never on the
    /// threads that serve requests.
    /// `clientGone` tells whether the client that asked has gone away: the scan then stops at its
    /// next page, and nothing is answered.
    func run(_ candidates: @escaping @Sendable () throws -> [RuleDefinition], filter: HistoryFilter, limit: Int,
             clientGone: @escaping @Sendable () -> Bool = { false }) async throws -> Report {
        guard running.withLock({ running in defer { running = true }; return !running }) else {
            throw HTTPError(.tooManyRequests, code: "dry_run_busy", detail: "Another dry run is under way here; try again when it is done.",
                            headers: ["Retry-After": "5"])
        }
        defer { running.withLock { $0 = false } }
        let started = ContinuousClock.now
        let (rules, history, sendsSoFar, logger, model) = (self.rules, self.history, self.sendsSoFar, self.logger, classifier.model)
        let outcome: Result<Report, Error> = await worker.run {
            Result {
                let definitions = try candidates()
                let judge = try Judge(candidates: definitions, rules: rules, model: model)
                logger.info("dry run started", ["rules": .int(definitions.count), "limit": .int(limit)])
                return try Self.scan(judge, history: history, filter: filter, limit: limit, started: started, sendsSoFar: sendsSoFar,
                                     clientGone: clientGone)
            }
        }
        if case .failure(is CancellationError) = outcome {
            logger.info("dry run cancelled: its client went away", ["milliseconds": .int(Int((ContinuousClock.now - started) / .milliseconds(1)))])
        }
        var report = try outcome.get()
        report.milliseconds = Int((ContinuousClock.now - started) / .milliseconds(1))
        logger.info("dry run done", ["scanned": .int(report.scanned), "matched": .int(report.matched),
                                     "milliseconds": .int(report.milliseconds), "complete": .string(String(report.complete))])
        return report
    }

    /// Reads and judges page after page. A lower priority alone does not keep a scan from slowing
    /// sends down (it reads the store they write, and shares the cores' caches): while sends are
    /// busy, it rests between pages, four times as long as the page took.
    private static func scan(_ judge: Judge, history: any MessageHistoryRepository, filter: HistoryFilter, limit: Int,
                             started: ContinuousClock.Instant, sendsSoFar: () -> Int, clientGone: () -> Bool) throws -> Report {
        let reader = try history.historyReader()
        var report = Report()
        var before: Int64?
        var pageStarted = ContinuousClock.now
        var sendsBefore = sendsSoFar()
        while report.scanned < limit {
            if clientGone() { throw CancellationError() }
            let now = ContinuousClock.now
            let sends = sendsSoFar()
            let sendRate = Double(sends - sendsBefore) / max(0.001, (now - pageStarted) / .seconds(1))
            if sendRate > busySendsPerSecond {
                Thread.sleep(forTimeInterval: min(1, (now - pageStarted) / .seconds(1) * restPerWork))
            }
            pageStarted = ContinuousClock.now
            sendsBefore = sendsSoFar()
            if ContinuousClock.now - started > timeLimit {
                report.complete = false
                break
            }
            let wanted = min(pageSize, limit - report.scanned)
            let page = try reader.page(filter, before: before, limit: wanted)
            guard let last = page.last else { break }
            before = last.sequence
            let outcome = judge.judge(page)
            report.scanned += page.count
            report.matched += outcome.matched.count
            for (change, count) in outcome.changes { report.changes[change, default: 0] += count }
            report.samples.append(contentsOf: outcome.samples.prefix(maxSamples - report.samples.count))
            for resolution in try reader.reviewResolutions(messageIDs: outcome.matched).values {
                if resolution == "dismissed" { report.dismissed += 1 } else { report.confirmed += 1 }
            }
            if page.count < wanted { break }
        }
        let reviewed = report.confirmed + report.dismissed
        report.precision = reviewed == 0 ? nil : Double(report.confirmed) / Double(reviewed)
        return report
    }

    /// The verdicts of the rules in force and of the candidates, for a page of messages.
    private struct Judge: Sendable {
        struct PageOutcome: Sendable {
            var matched: [String] = []
            var changes: [String: Int] = [:]
            var samples: [Report.Sample] = []
        }

        let current: CompiledRuleSet
        /// The classifier in force when the run began.
        let model: HarmModel?
        /// The candidates and, unless one of them is an allow rule, the allow rules in force (which
        /// exempt text from candidates as from any rule): its verdict is added to the current one.
        /// With a candidate allow rule, the rules in force and the candidates compiled as one.
        let candidates: CompiledRuleSet
        let whole: Bool
        let candidateIDs: Set<String>

        init(candidates definitions: [RuleDefinition], rules: Rules, model: HarmModel?) throws(HTTPError) {
            current = rules.engine.ruleSet
            self.model = model
            candidateIDs = Set(definitions.map(\.id))
            whole = definitions.contains { $0.kind == .allow }
            let set = whole ? current.rules + definitions
                : definitions + current.rules.filter { $0.kind == .allow && $0.enabled && $0.mode == .enforce }
            do {
                candidates = try rules.compileHere(set)
            } catch {
                throw HTTPError(.unprocessableContent, code: "invalid_pattern", detail: "The rules do not compile together: \(error.reason)").keyed("pattern.compile", error.reason)
            }
        }

        /// The text rules, the rate rules' look at the message alone and the score rules: history
        /// has no sender to judge by, so flood rules and link windows are not replayed.
        private func verdict(_ set: CompiledRuleSet, _ message: HistoryMessage, _ normalized: NormalizedText, _ scores: HarmScores) -> Verdict {
            TextJudgement.alone(message.text, normalized: normalized, set, scores: scores, channel: message.channelID, sender: nil)
        }

        func judge(_ page: [HistoryMessage]) -> PageOutcome {
            var outcome = PageOutcome()
            for message in page {
                // Normalized and scored once, for both rule sets.
                let normalized = NormalizedText(message.text)
                let scores = model?.harmScores(normalized) ?? HarmScores()
                func verdict(_ set: CompiledRuleSet) -> Verdict { self.verdict(set, message, normalized, scores) }
                let before = verdict(current)
                let after: Verdict
                let hits: [Verdict.RuleMatch]
                if whole {
                    after = verdict(candidates)
                    hits = (after.rules + after.observed).filter { candidateIDs.contains($0.ruleID) }
                    guard !hits.isEmpty || after.action != before.action else { continue }
                } else {
                    let added = verdict(candidates)
                    hits = (added.rules + added.observed).filter { candidateIDs.contains($0.ruleID) }
                    guard !hits.isEmpty else { continue }
                    after = before.adding(rules: added.rules.filter { candidateIDs.contains($0.ruleID) },
                                          observed: added.observed.filter { candidateIDs.contains($0.ruleID) })
                }
                outcome.matched.append(message.id)
                // A message changes when the candidates change what decides it.
                if after.action != before.action {
                    let state = MessageState(after: after.action)
                    if state != message.state { outcome.changes["\(message.state.rawValue)->\(state.rawValue)", default: 0] += 1 }
                }
                if outcome.samples.count < DryRunner.maxSamples {
                    let spans = hits.flatMap(\.matched).sorted { ($0.start, $0.end) < ($1.start, $1.end) }
                    outcome.samples.append(Report.Sample(message_id: message.id, channel_id: message.channelID, text: message.text,
                                                         action: after.action?.rawValue ?? "none",
                                                         matched: Array(spans.prefix(CompiledRuleSet.maxReportedSpans))))
                }
            }
            return outcome
        }
    }
}
