import BouncerDomain
import BouncerIdentity
import BouncerModeration
import BouncerStore
import Foundation
import Locking
import Synchronization

/// Judges messages by every rule in force: the text rules of the compiled set, the rate rules, and
/// the score rules with the classifier's scores, for the sender's role and age; and counts each
/// rule's hits for its statistics.
package final class MessageJudge: Sendable {
    package let rules: Rules
    package let classifier: Classifier
    package let hits: RuleHits
    package let senders: SenderAges
    package let rates: RateRules
    private let metrics: Metrics
    private let logger: Logger
    private let flusher = Locked<Task<Void, Never>?>(nil)
    private let judged = Atomic<Int>(0)

    /// Messages judged since start (sends and edits): how busy sends are, for background work
    /// that gives way to them.
    package var messagesJudged: Int { judged.load(ordering: .relaxed) }

    package init(rules: Rules, classifier: Classifier, store: any ServiceStore, metrics: Metrics, logger: Logger) {
        self.rules = rules
        self.classifier = classifier
        self.metrics = metrics
        self.logger = logger
        hits = RuleHits(store: store, metrics: metrics, logger: logger)
        senders = SenderAges(store: store)
        rates = RateRules(ledger: store.sharedRateLedger ?? MemoryRateLedger())
    }

    /// The verdict on a message `identity` sends to `channel`, which counts toward the rate rules'
    /// windows. `completion` runs at once when all that is needed is at hand, else once the
    /// sender's age or the shared marks of rate rules have been read. It fails closed: when the
    /// shared marks cannot be read, with that error (counted, and logged), never with a verdict
    /// that takes the sender for one who sent nothing before.
    package func judgeSend(_ text: String, channel: String, _ identity: Identity, completion: @escaping @Sendable (Result<Verdict, any Error>) -> Void) {
        judge(text, channel: channel, identity, records: true, completion: completion)
    }

    /// The verdict on an edit: what a send would get, though it adds nothing to the windows (and
    /// so reads no shared marks).
    package func judgeEdit(_ text: String, channel: String?, _ identity: Identity) async throws -> Verdict {
        try await withCheckedThrowingContinuation { continuation in
            judge(text, channel: channel, identity, records: false) { continuation.resume(with: $0) }
        }
    }

    /// What `moderation/check` answers: every rule, for no particular sender; rate rules judge the
    /// text alone (a sender's earlier messages are not asked for). Counts nothing.
    package func check(_ text: String, channel: String?) -> Verdict {
        TextJudgement.alone(text, rules.engine.ruleSet, model: classifier.model, channel: channel, sender: nil)
    }

    private func judge(_ text: String, channel: String?, _ identity: Identity, records: Bool,
                       completion: @escaping @Sendable (Result<Verdict, any Error>) -> Void) {
        let ruleSet = rules.engine.ruleSet
        let now = Date().timeIntervalSince1970
        judged.add(1, ordering: .relaxed)
        switch senders.note(identity.userID, now: now) {
        case .known(let age):
            judge(text, channel: channel, identity, age: age, ruleSet, records: records, completion: completion)
        case .unknown where !ruleSet.asksSenderAge:
            // No rule asks how old the sender is.
            judge(text, channel: channel, identity, age: 0, ruleSet, records: records, completion: completion)
        case .unknown:
            Task {
                let age = await senders.age(identity.userID, now: now)
                judge(text, channel: channel, identity, age: age, ruleSet, records: records, completion: completion)
            }
        }
    }

    /// The verdict once the sender's age is known. A method, not a closure the caller makes: most
    /// sends know the age at once, and a closure would be an allocation each.
    private func judge(_ text: String, channel: String?, _ identity: Identity, age: Double, _ ruleSet: CompiledRuleSet,
                       records: Bool, completion: @escaping @Sendable (Result<Verdict, any Error>) -> Void) {
        let sender = SenderFacts(userID: identity.userID, role: identity.role, secondsSinceFirstSeen: age)
        let model = classifier.model
        guard !ruleSet.rateRules.isEmpty || model != nil else {
            let verdict = ruleSet.check(text, channel: channel, sender: sender)
            hits.count(verdict)
            return completion(.success(verdict))
        }
        // Normalized once, for the text rules, the classifier and the flood rules' likeness.
        let normalized = NormalizedText(text)
        let textVerdict = ruleSet.check(normalized, channel: channel, sender: sender)
        let verdict = model.map { TextJudgement.withScores(textVerdict, $0.harmScores(normalized), text: text, ruleSet, channel: channel, sender: sender) }
            ?? textVerdict
        guard !ruleSet.rateRules.isEmpty else {
            hits.count(verdict)
            return completion(.success(verdict))
        }
        let done: @Sendable (Result<RateRules.Matches, any Error>) -> Void = { [self] matches in
            switch matches {
            case .success(let matches):
                let whole = verdict.adding(rules: matches.rules, observed: matches.observed)
                hits.count(whole)
                completion(.success(whole))
            case .failure(let error):
                metrics.add(ServiceMetric.rateLedgerFailures)
                logger.warn("the shared marks of rate rules could not be read; the send fails", ["error": .string(String(describing: error))])
                completion(.failure(RateMarksUnavailable(underlying: error)))
            }
        }
        guard records else {
            return done(.success(RateRules.judgeAlone(text, normalizedWords: normalized.words, rules: ruleSet.rateRules, channel: channel,
                                                      sender: sender)))
        }
        rates.judgeSend(text, normalizedWords: normalized.words, rules: ruleSet.rateRules, channel: channel, sender: sender, completion: done)
    }

    /// Starts writing hit counts and new senders about once a second.
    package func start(interval: Duration = .seconds(1)) {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                await self.flush()
            }
        }
        flusher.withLock { $0 = task }
    }

    package func flush() async {
        await hits.flush()
        await senders.flush()
    }

    /// Stops the periodic writes and writes what is left.
    package func stop() async {
        flusher.withLock { $0 }?.cancel()
        await flush()
    }
}
