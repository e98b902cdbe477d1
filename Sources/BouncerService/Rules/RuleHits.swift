import BouncerModeration
import BouncerStore
import Foundation
import Locking

/// Counts every rule's hits as messages are judged, in memory, and adds them to the store about
/// once a second in one transaction: a send writes nothing for its rules' statistics. Reads add
/// what is not yet written, so this instance's own hits show at once.
final class RuleHits: Sendable {
    private struct Key: Hashable {
        var ruleID: String
        var hour: Int64
    }

    private struct Counts {
        var enforced = 0
        var observed = 0
    }

    private let store: any RuleStatsRepository
    private let metrics: Metrics
    private let logger: Logger
    private let pending = Locked<[Key: Counts]>([:])
    /// Counts being written now: still added to reads until the write has committed.
    private let writing = Locked<[Key: Counts]>([:])
    /// Most distinct rule-hours held when the store cannot take them: past this, the oldest
    /// hours are dropped (and said so) rather than memory growing while the store is down.
    static let maxPendingKeys = 100_000

    init(store: any RuleStatsRepository, metrics: Metrics, logger: Logger) {
        self.store = store
        self.metrics = metrics
        self.logger = logger
    }

    /// Counts the rules of a verdict (a message sent or edited).
    func count(_ verdict: Verdict) {
        guard !verdict.rules.isEmpty || !verdict.observed.isEmpty else { return }
        let hour = Self.hour(of: Date().timeIntervalSince1970)
        pending.withLock { pending in
            for rule in verdict.rules { pending[Key(ruleID: rule.ruleID, hour: hour), default: Counts()].enforced += 1 }
            for rule in verdict.observed { pending[Key(ruleID: rule.ruleID, hour: hour), default: Counts()].observed += 1 }
        }
        // By mode only: a series for each rule would be 100,000 series for 100,000 rules, kept
        // after a rule is deleted. Each rule's hits are read through /v1/rules/stats.
        if !verdict.rules.isEmpty { metrics.add("bouncer_rule_matches_total", label: "enforce", Double(verdict.rules.count)) }
        if !verdict.observed.isEmpty { metrics.add("bouncer_rule_matches_total", label: "observe", Double(verdict.observed.count)) }
    }

    static func hour(of epochSeconds: Double) -> Int64 { Int64((epochSeconds / 3600).rounded(.down)) }

    /// Writes the counts taken so far. On failure they are kept for the next try.
    func flush() async {
        let taken = pending.withLock { pending -> [Key: Counts] in
            defer { pending = [:] }
            return pending
        }
        guard !taken.isEmpty else { return }
        writing.withLock { $0 = taken }
        do {
            try await store.addRuleHits(taken.map { RuleHitCount(ruleID: $0.key.ruleID, hour: $0.key.hour, enforced: $0.value.enforced,
                                                                  observed: $0.value.observed) })
        } catch {
            let dropped = pending.withLock { pending -> Int in
                for (key, counts) in taken {
                    pending[key, default: Counts()].enforced += counts.enforced
                    pending[key, default: Counts()].observed += counts.observed
                }
                guard pending.count > Self.maxPendingKeys else { return 0 }
                let oldest = pending.keys.sorted { $0.hour < $1.hour }.prefix(pending.count - Self.maxPendingKeys)
                for key in oldest { pending[key] = nil }
                return oldest.count
            }
            logger.warn("rule hits not written; kept for the next try", ["error": .string("\(error)"), "dropped": .int(dropped)])
        }
        writing.withLock { $0 = [:] }
    }

    /// The stats read from the store, with the hits this instance has not written yet.
    func addingUnwritten(to stats: [String: RuleStats], _ period: StatsPeriod) -> [String: RuleStats] {
        let (since, until) = period.hours
        var result = stats
        let unwritten = writing.withLock { $0 }.merging(pending.withLock { $0 }) { a, b in
            Counts(enforced: a.enforced + b.enforced, observed: a.observed + b.observed)
        }
        for (key, counts) in unwritten where key.hour >= since && key.hour < until && result[key.ruleID] != nil {
            result[key.ruleID]?.enforcedHits += counts.enforced
            result[key.ruleID]?.observedHits += counts.observed
        }
        return result
    }
}
