import BouncerDomain
import BouncerModeration
import BouncerStore
import Dispatch
import Locking

/// The rules in force: compiled from the store at start, and compiled again and swapped in
/// whole after every change, before the change is answered, so the next message sees it (and,
/// for a change another instance made, when this one finds the rules' version advanced).
package final class Rules: Sendable {
    package let engine: RuleEngine
    package let repository: any RuleRepository
    private let appliedSequence: Locked<UInt64>
    /// The rule set's setting for word rules that do not say whether they match inflections.
    private let inflections: Locked<Bool>
    /// Where compiled databases are kept between runs (nil: compiled every time).
    private let databaseStore: (any CompiledDatabaseStore)?
    private let logger: Logger

    private let metrics: Metrics

    package init(repository: any RuleRepository, inflections: Bool = true, databaseStore: (any CompiledDatabaseStore)? = nil, logger: Logger,
         metrics: Metrics) async throws {
        let snapshot = try await repository.allRules()
        let set = try Self.compile(snapshot.rules, inflections: inflections, store: databaseStore, logger: logger)
        self.engine = RuleEngine(set)
        self.repository = repository
        self.appliedSequence = Locked(snapshot.sequence)
        self.inflections = Locked(inflections)
        self.databaseStore = databaseStore
        self.logger = logger
        self.metrics = metrics
        report(set)
    }

    /// The rules' version in force (`ChangeTopic.rules`).
    package var version: UInt64 { appliedSequence.withLock { $0 } }

    /// Changes the rule set's inflection setting, and compiles the rules again with it.
    package func setInflections(_ enabled: Bool) async throws {
        guard inflections.withLock({ current in defer { current = enabled }; return current != enabled }) else { return }
        // A fresh snapshot, read after the change: any compile that began before it carries an
        // older or equal sequence, and does not replace this one.
        try await apply(try await repository.allRules(), replacingEqual: true)
    }

    private func report(_ set: CompiledRuleSet) {
        let databases = set.databasesLoaded
        logger.info("rules compiled", ["rules": .int(set.ruleCount), "milliseconds": .double(set.compileDuration / .milliseconds(1)),
                                       "databases": .int(databases.total), "databases_loaded": .int(databases.loaded)])
        metrics.observe(ServiceMetric.rulesCompileDuration, set.compileDuration / .seconds(1))
        metrics.set(ServiceMetric.rules, Double(set.ruleCount))
        metrics.set(ServiceMetric.rulesDatabaseBytes, Double(set.databaseSize))
    }

    /// Compiling 100,000 rules takes seconds of CPU: it runs here, off the threads that serve
    /// requests, so a large import does not hold up sends.
    private static let compileQueue = DispatchQueue(label: "bouncer.rules.compile", qos: .utility)

    /// Compiles the rules a committed change left, and swaps them in unless a later change
    /// already was (`replacingEqual`: or the same change, compiled under an older setting).
    package func apply(_ snapshot: RuleSnapshot, replacingEqual: Bool = false) async throws(CompiledRuleSet.Refusal) {
        // Each change is compiled once: a version already in force (this instance made the
        // change, or another reload got there first) is not compiled again.
        guard replacingEqual || snapshot.sequence > version else { return }
        let logger = self.logger
        let store = databaseStore
        let inflections = self.inflections.withLock { $0 }
        let result: Result<CompiledRuleSet, CompiledRuleSet.Refusal> = await withCheckedContinuation { continuation in
            Self.compileQueue.async {
                continuation.resume(returning: Result { () throws(CompiledRuleSet.Refusal) in
                    try Self.compile(snapshot.rules, inflections: inflections, store: store, logger: logger)
                })
            }
        }
        let set = try result.get()
        let installed = appliedSequence.withLock { applied in
            guard snapshot.sequence > applied || (replacingEqual && snapshot.sequence == applied) else { return false }
            applied = snapshot.sequence
            engine.replace(with: set)
            return true
        }
        // A set a later change overtook while it compiled is not in force: its figures are not
        // the rules' (the gauges would say the older count until the next change).
        if installed { report(set) }
    }

    /// Compiles rules that are not put in force (a dry run's), with the rule set's setting, on
    /// the caller's thread (the dry run's own, of low priority: not the threads that serve
    /// requests, nor the queue that compiles the rules put in force); their databases are not kept.
    package func compileHere(_ definitions: [RuleDefinition]) throws(CompiledRuleSet.Refusal) -> CompiledRuleSet {
        try CompiledRuleSet.compile(definitions, inflections: inflections.withLock { $0 })
    }

    /// Counts `sequence` as in force without compiling it: the rules of that version were refused.
    package func skip(to sequence: UInt64) {
        appliedSequence.withLock { $0 = max($0, sequence) }
    }

    package static func compile(_ stored: [StoredRule], inflections: Bool, store: (any CompiledDatabaseStore)?,
                        logger: Logger) throws(CompiledRuleSet.Refusal) -> CompiledRuleSet {
        try CompiledRuleSet.compile(stored.map(\.definition), inflections: inflections, store: store)
    }

}
