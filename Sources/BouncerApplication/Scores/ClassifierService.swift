import BouncerClassifier
import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation
import JSON
import Locking

/// Why a classifier request is refused.
package enum ClassifierRefusal: Error, Sendable, Equatable {
    case notFound
    /// It is still training, or its training failed.
    case notReady(state: String)
    /// Its held-out AUC is below the model in force's.
    case worseModel(candidate: Double, inForce: Double)
    /// Another version is being trained (one at a time, across instances).
    case trainingInProgress
    /// No base data, no reviewed messages and no examples.
    case nothingToTrain
    /// `base` names no ready version.
    case unknownBase
}

/// A request to train a version (`POST /v1/classifiers/train`), checked by the HTTP API.
package struct TrainingRequest: Sendable {
    package var base: String?
    package var includeReviews: Bool
    package var examples: [LabelledText]

    package init(base: String?, includeReviews: Bool, examples: [LabelledText]) {
        self.base = base
        self.includeReviews = includeReviews
        self.examples = examples
    }
}

/// The classifier versions: training them from the base data, this community's reviewed messages
/// and given examples, on a thread of low priority (training never delays sends), one at a time;
/// listing them; and putting one in force on every instance.
package final class ClassifierService: Sendable {
    package let classifier: Classifier
    private let configured: HarmModel?
    private let store: any ClassifierRepository
    private let audit: Audit
    private let logger: Logger
    private let options: Options
    private let worker = LowPriorityWorker(label: "bouncer.classifier.training", idleOnly: true)
    /// The topic `classifier`'s version in force here.
    private let applied = Locked<UInt64>(0)
    /// The version trained here, if one is: a stop cancels it.
    private let stopping = Locked(false)

    package struct Options: Sendable {
        /// A labelled file (CSV or JSON lines) every training starts from, as `bouncer train` reads it.
        package var baseData: String?
        /// Most reviewed messages a training reads, newest decisions first.
        package var maxReviewed = 100_000
        package var timeLimit: Duration = .seconds(30 * 60)
        /// Versions kept besides the one in force.
        package var keep = 20

        package init(baseData: String? = nil) {
            self.baseData = baseData
        }
    }

    package init(configured: HarmModel?, store: any ClassifierRepository, audit: Audit, logger: Logger, options: Options) {
        self.configured = configured
        self.classifier = Classifier(configured)
        self.store = store
        self.audit = audit
        self.logger = logger
        self.options = options
    }

    /// The topic's version in force (`ChangeTopic.classifier`).
    package var version: UInt64 { applied.withLock { $0 } }

    /// Puts in force what the store says is (a version activated on any instance, or none: the
    /// configured model), and fails the trainings an instance stopped before finishing.
    package func load() async throws {
        try await failAbandonedTrainings()
        try await reload()
    }

    /// Marks failed the trainings that outlived their time limit: their instance stopped, or their
    /// outcome could not be stored. Asked at start and before each training, so that one lost
    /// training never keeps the next from starting.
    private func failAbandonedTrainings() async throws {
        let now = Date()
        let abandoned = try await store.abandonTrainings(startedBefore: Timestamp.format(now.addingTimeInterval(-(options.timeLimit / .seconds(1)) - 60)),
                                                         reason: "its instance stopped, or its outcome could not be stored, before it finished",
                                                         at: Timestamp.format(now))
        if abandoned > 0 { logger.warn("classifier trainings past their time limit marked failed", ["count": .int(abandoned)]) }
    }

    /// Loads the version in force again (another instance activated one).
    package func reload() async throws {
        let inForce = try await store.classifierInForce()
        var model = configured
        if let stored = inForce.classifier, let bytes = inForce.model {
            do {
                model = try ModelFile.decode(bytes)
            } catch {
                logger.error("the classifier version in force cannot be read; the configured model stays in force",
                             ["id": .string(stored.id), "error": .string(error.description)])
            }
        }
        applied.withLock { version in
            guard inForce.version >= version else { return }
            version = inForce.version
            classifier.replace(with: model)
        }
    }

    package func list(before: String?, limit: Int) async throws -> (items: [ClassifierJSON], next: String?) {
        let stored = try await store.classifiers(before: before, limit: limit + 1)
        var items = stored.prefix(limit).map(ClassifierJSON.init)
        // The configured model is listed first, on the first page.
        if before == nil, let configured {
            items.insert(ClassifierJSON(configured: configured, inForce: !stored.contains { $0.inForce }), at: 0)
        }
        return (items, stored.count > limit ? stored[limit - 1].id : nil)
    }

    /// A version, or the configured model by its id; `ClassifierRefusal.notFound` for neither. A
    /// store that cannot answer throws its own error (a 503), never a 404.
    package func get(_ id: String) async throws -> ClassifierJSON {
        if let configured, id == configured.info.id {
            return ClassifierJSON(configured: configured, inForce: try await store.classifierInForce().classifier == nil)
        }
        guard let stored = try await store.classifier(id: id) else { throw ClassifierRefusal.notFound }
        return ClassifierJSON(stored)
    }

    /// Starts training a version; answers its id at once. The training runs on the worker.
    package func train(_ request: TrainingRequest, by identity: Identity) async throws -> String {
        let base = try await baseModel(request.base)
        let id = TimeOrderedID.make()
        let started = StoredClassifier(id: id, state: .training, createdAt: Timestamp.now(), createdBy: identity.userID,
                                       baseID: base?.id)
        guard !request.examples.isEmpty || request.includeReviews || options.baseData != nil else { throw ClassifierRefusal.nothingToTrain }
        try await failAbandonedTrainings()
        guard try await store.startTraining(started) else { throw ClassifierRefusal.trainingInProgress }
        try await audit.record(identity, "classifier.train", "classifier", id,
                               details: ["examples": String(request.examples.count), "include_reviews": String(request.includeReviews)])
        logger.info("classifier training started", ["id": .string(id), "examples": .int(request.examples.count)])
        let job = TrainingJob(id: id, request: request, base: base, options: options, store: store, logger: logger, stopping: stopping)
        Task { await worker.run { job.run() } }
        return id
    }

    /// The model a training starts from: `id`'s, or the one in force.
    private func baseModel(_ id: String?) async throws -> (id: String, model: HarmModel)? {
        guard let id else {
            guard let model = classifier.model else { return nil }
            return (model.info.id, model)
        }
        if let configured, id == configured.info.id { return (id, configured) }
        guard let bytes = try await store.classifierModel(id: id), let model = try? ModelFile.decode(bytes) else {
            throw ClassifierRefusal.unknownBase
        }
        return (id, model)
    }

    /// Puts `id` in force on every instance: refused when its held-out AUC is below the model in
    /// force's, unless `force`.
    package func activate(_ id: String, force: Bool, by identity: Identity) async throws -> ClassifierJSON {
        let candidate = try await get(id)
        guard candidate.state == "ready" else { throw ClassifierRefusal.notReady(state: candidate.state) }
        let inForce = try await store.classifierInForce().classifier.map(ClassifierJSON.init)
            ?? configured.map { ClassifierJSON(configured: $0, inForce: true) }
        if !force, let inForce, inForce.id != candidate.id, let theirs = inForce.evaluation, let ours = candidate.evaluation {
            // On the same held-out texts when the candidate was measured beside the model in force.
            let baseline = ours.compared_with?.id == inForce.id ? ours.compared_with!.auc : theirs.auc
            if ours.auc < baseline { throw ClassifierRefusal.worseModel(candidate: ours.auc, inForce: baseline) }
        }
        guard let version = try await store.activateClassifier(id: candidate.configured ? nil : id) else { throw ClassifierRefusal.notFound }
        try await reloadAt(version)
        try await audit.record(identity, "classifier.activate", "classifier", id, details: ["forced": String(force)])
        logger.info("classifier put in force", ["id": .string(id), "version": .int(Int(version))])
        return try await get(id)
    }

    private func reloadAt(_ version: UInt64) async throws {
        if self.version < version { try await reload() }
    }

    /// Cancels a training under way here (at shutdown).
    package func stop() {
        stopping.withLock { $0 = true }
    }
}

/// One training, run on the worker's thread: reads its data, trains, and stores the outcome.
private struct TrainingJob: Sendable {
    let id: String
    let request: TrainingRequest
    let base: (id: String, model: HarmModel)?
    let options: ClassifierService.Options
    let store: any ClassifierRepository
    let logger: Logger
    let stopping: Locked<Bool>

    func run() {
        let started = ContinuousClock.now
        let outcome: TrainingOutcome
        do {
            outcome = try train(started: started)
        } catch {
            logger.warn("classifier training failed", ["id": .string(id), "error": .string(String(describing: error))])
            outcome = .failed(reason: String(describing: error))
        }
        let (store, id, keep) = (store, id, options.keep)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                try await store.finishTraining(id: id, outcome, at: Timestamp.now(), keep: keep)
            } catch {
                logger.error("a classifier training's outcome could not be stored", ["id": .string(id), "error": .string(String(describing: error))])
            }
            done.signal()
        }
        done.wait()
    }

    private func train(started: ContinuousClock.Instant) throws -> TrainingOutcome {
        var texts: [LabelledText] = []
        var sources: [ModelInfo.Source] = []
        if let path = options.baseData {
            guard let data = FileManager.default.contents(atPath: path) else { throw TrainingFailure("cannot read the base data \(path)") }
            let base = try LabelledData.read([UInt8](data))
            texts += base
            sources.append(ModelInfo.Source(name: URL(fileURLWithPath: path).lastPathComponent, examples: base.count))
        }
        if request.includeReviews {
            let reviewed = try wait { try await store.reviewedTexts(limit: options.maxReviewed) }
            texts += reviewed.map { LabelledText(text: $0.text, label: $0.confirmed) }
            sources.append(ModelInfo.Source(name: "reviewed messages", examples: reviewed.count))
        }
        texts += request.examples
        if !request.examples.isEmpty { sources.append(ModelInfo.Source(name: "examples given", examples: request.examples.count)) }
        logger.info("classifier training: data read", ["id": .string(id), "examples": .int(texts.count)])
        var trainingOptions = TrainingOptions()
        trainingOptions.deadline = started + options.timeLimit
        if let base { trainingOptions.hasher = base.model.hasher }
        let examples = ModelTraining.examples(texts, parallel: false)
        let results = try Trainer(options: trainingOptions).train(examples, base: base?.model, progress: { line in
            logger.info("classifier training", ["id": .string(id), "progress": .string(line)])
        }, isCancelled: { stopping.withLock { $0 } })
        let info = ModelInfo(id: id, languages: base?.model.info.languages ?? ["en"], created_at: Timestamp.now(), examples: texts.count,
                             sources: (base?.model.info.sources ?? []) + sources, command: "POST /v1/classifiers/train", evaluation: [:])
        let model = ModelTraining.model(results, base: base?.model, hasher: trainingOptions.hasher, info: info)
        var evaluations: [String: EvaluationJSON] = [:]
        for result in results {
            var comparison: EvaluationJSON.Comparison?
            if let base, let baseEvaluation = result.baseEvaluation { comparison = .init(id: base.id, auc: baseEvaluation.auc) }
            evaluations[result.head.attribute] = EvaluationJSON(result.evaluation, comparedWith: comparison)
        }
        for attribute in model.attributes where evaluations[attribute] == nil {
            evaluations[attribute] = model.info.evaluation[attribute].map { EvaluationJSON($0) }
        }
        logger.info("classifier training done", ["id": .string(id), "seconds": .double((ContinuousClock.now - started) / .seconds(1))])
        return .ready(model: ModelFile.encode(model), attributes: try JSONText.encodedString(model.attributes),
                      languages: try JSONText.encodedString(model.info.languages), evaluation: try JSONText.encodedString(evaluations),
                      examples: texts.count)
    }

    /// Runs store work from the worker's thread and waits for it.
    private func wait<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let result = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0 }!.get()
    }
}

private struct TrainingFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
