import BouncerClassifier
import BouncerStore
import JSON

/// A classifier version as `GET /v1/classifiers` shows it.
package struct ClassifierJSON: Encodable, Sendable {
    package var id: String
    package var state: String
    package var attributes: [String]
    package var languages: [String]
    package var in_force: Bool
    package var created_at: String
    package var examples: Int
    /// The evaluation of its main attribute (`toxicity` when it has it) on its held-out share;
    /// null until trained.
    @Nullable package var evaluation: EvaluationJSON?
    /// Each attribute's evaluation.
    package var evaluations: [String: EvaluationJSON]
    /// Why its training failed.
    package var error: String?
    /// The version it was trained from.
    package var base: String?
    /// Whether it is the model the service was started with, not one trained through the API.
    package var configured: Bool
}

/// An evaluation, and the model in force at training measured on the same held-out texts.
package struct EvaluationJSON: Codable, Sendable, Equatable {
    package var auc: Double
    package var precision: Double
    package var recall: Double
    package var f1: Double
    package var threshold: Double
    package var held_out: Int
    /// The base model's AUC on the same held-out texts (when it was trained from one).
    package var compared_with: Comparison?

    package struct Comparison: Codable, Sendable, Equatable {
        package var id: String
        package var auc: Double
    }

    package init(_ evaluation: Evaluation, comparedWith: Comparison? = nil) {
        auc = Self.rounded(evaluation.auc)
        precision = Self.rounded(evaluation.precision)
        recall = Self.rounded(evaluation.recall)
        f1 = Self.rounded(evaluation.f1)
        threshold = evaluation.threshold
        held_out = evaluation.held_out
        compared_with = comparedWith.map { Comparison(id: $0.id, auc: Self.rounded($0.auc)) }
    }

    static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
}

extension ClassifierJSON {
    /// The model a service was started with (the bundled one, or a file), as a version.
    package init(configured model: HarmModel, inForce: Bool) {
        let evaluations = model.info.evaluation.mapValues { EvaluationJSON($0) }
        self.init(id: model.info.id, state: "ready", attributes: model.attributes, languages: model.info.languages, in_force: inForce,
                  created_at: model.info.created_at, examples: model.info.examples,
                  evaluation: Self.main(evaluations, model.attributes), evaluations: evaluations, error: nil, base: nil, configured: true)
    }

    package init(_ stored: StoredClassifier) {
        let evaluations = stored.evaluation.flatMap { try? JSONValue.decode([String: EvaluationJSON].self, from: $0) } ?? [:]
        let attributes = (try? JSONValue.decode([String].self, from: stored.attributes)) ?? []
        self.init(id: stored.id, state: stored.state.rawValue, attributes: attributes,
                  languages: (try? JSONValue.decode([String].self, from: stored.languages)) ?? [], in_force: stored.inForce,
                  created_at: stored.createdAt, examples: stored.examples, evaluation: Self.main(evaluations, attributes),
                  evaluations: evaluations, error: stored.error, base: stored.baseID, configured: false)
    }

    /// The evaluation shown first: `toxicity`'s, or the first attribute's.
    static func main(_ evaluations: [String: EvaluationJSON], _ attributes: [String]) -> EvaluationJSON? {
        evaluations["toxicity"] ?? attributes.lazy.compactMap { evaluations[$0] }.first
    }
}
