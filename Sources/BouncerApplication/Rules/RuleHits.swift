import BouncerModeration
import BouncerStore
import Foundation
import Locking

/// Counts every rule's hits as messages are judged, in memory, and adds them to the store about
/// once a second in one transaction: a send writes nothing for its rules' statistics. Reads add
/// what is not yet written, so this instance's own hits show at once.
package final class RuleHits: Sendable {
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
    private struct Unwritten {
        var pending: [Key: Counts] = [:]
        /// Counts being written now: still added to reads until the write has committed.
        var writing: [Key: Counts] = [:]
        /// Advanced each time a write's counts leave memory (committed, so in the store): a read
        /// that spans it may have missed them in both places, and reads again.
        var generation: UInt64 = 0
    }

    private let unwritten = Locked(Unwritten())
    /// Most distinct rule-hours held when the store cannot take them: past this, the oldest
    /// hours are dropped (and said so) rather than memory growing while the store is down.
    package static let maxPendingKeys = 100_000

    package init(store: any RuleStatsRepository, metrics: Metrics, logger: Logger) {
        self.store = store
        self.metrics = metrics
        self.logger = logger
    }

    /// Counts the rules of a verdict (a message sent or edited).
    package func count(_ verdict: Verdict) {
        guard !verdict.rules.isEmpty || !verdict.observed.isEmpty else { return }
        let hour = Self.hour(of: Date().timeIntervalSince1970)
        unwritten.withLock { unwritten in
            for rule in verdict.rules { unwritten.pending[Key(ruleID: rule.ruleID, hour: hour), default: Counts()].enforced += 1 }
            for rule in verdict.observed { unwritten.pending[Key(ruleID: rule.ruleID, hour: hour), default: Counts()].observed += 1 }
        }
        // By mode only: a series for each rule would be 100,000 series for 100,000 rules, kept
        // after a rule is deleted. Each rule's hits are read through /v1/rules/stats.
        if !verdict.rules.isEmpty { metrics.add(ServiceMetric.ruleMatches, "enforce", Double(verdict.rules.count)) }
        if !verdict.observed.isEmpty { metrics.add(ServiceMetric.ruleMatches, "observe", Double(verdict.observed.count)) }
    }

    package static func hour(of epochSeconds: Double) -> Int64 { Int64((epochSeconds / 3600).rounded(.down)) }

    /// Writes the counts taken so far. On failure they are kept for the next try.
    package func flush() async {
        // Moved from pending to writing at once: a read never finds them in neither.
        let taken = unwritten.withLock { unwritten -> [Key: Counts] in
            defer { (unwritten.writing, unwritten.pending) = (unwritten.pending, [:]) }
            return unwritten.pending
        }
        guard !taken.isEmpty else { return }
        do {
            try await store.addRuleHits(taken.map { RuleHitCount(ruleID: $0.key.ruleID, hour: $0.key.hour, enforced: $0.value.enforced,
                                                                  observed: $0.value.observed) })
        } catch {
            let dropped = unwritten.withLock { unwritten -> Int in
                for (key, counts) in taken {
                    unwritten.pending[key, default: Counts()].enforced += counts.enforced
                    unwritten.pending[key, default: Counts()].observed += counts.observed
                }
                unwritten.writing = [:]
                guard unwritten.pending.count > Self.maxPendingKeys else { return 0 }
                let oldest = unwritten.pending.keys.sorted { $0.hour < $1.hour }.prefix(unwritten.pending.count - Self.maxPendingKeys)
                for key in oldest { unwritten.pending[key] = nil }
                return oldest.count
            }
            logger.warn("rule hits not written; kept for the next try", ["error": .string("\(error)"), "dropped": .int(dropped)])
            return
        }
        unwritten.withLock { unwritten in
            unwritten.writing = [:]
            unwritten.generation &+= 1
        }
    }

    /// The stats `read` gets from the store, with the hits this instance has not written yet.
    /// Read again when a write's counts left memory meanwhile: the store's read may have come
    /// before their commit, and this instance's counts after it (they were in neither).
    /// (Writes come about once a second; a read slower than that takes what its last try found.)
    package func stats(_ period: StatsPeriod, read: () async throws -> [String: RuleStats]) async throws -> [String: RuleStats] {
        var tries = 0
        while true {
            tries += 1
            let before = unwritten.withLock { $0.generation }
            let stored = try await read()
            let (result, after) = unwritten.withLock { unwritten in
                (Self.adding(unwritten.pending, unwritten.writing, to: stored, period), unwritten.generation)
            }
            if after == before || tries == 5 { return result }
        }
    }

    private static func adding(_ pending: [Key: Counts], _ writing: [Key: Counts], to stats: [String: RuleStats],
                               _ period: StatsPeriod) -> [String: RuleStats] {
        let (since, until) = period.hours
        var result = stats
        let unwritten = writing.merging(pending) { a, b in Counts(enforced: a.enforced + b.enforced, observed: a.observed + b.observed) }
        for (key, counts) in unwritten where key.hour >= since && key.hour < until && result[key.ruleID] != nil {
            result[key.ruleID]?.enforcedHits += counts.enforced
            result[key.ruleID]?.observedHits += counts.observed
        }
        return result
    }
}
