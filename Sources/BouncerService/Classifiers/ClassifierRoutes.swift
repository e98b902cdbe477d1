import BouncerApplication
import BouncerClassifier
import BouncerDomain
import HTTPServer

/// `/v1/classifiers`: the harm-score model versions, training one from this community's
/// reviewed messages, and putting one in force.
struct ClassifierRoutes: Sendable {
    let service: ClassifierService
    let maxTextLength: @Sendable () -> Int

    /// Most examples one training request may give, and the body that holds them.
    static let maxExamples = 10_000
    static let trainBodyLimit = 16 << 20

    struct TrainInput: Decodable {
        var base: String?
        var include_reviews: Bool?
        var examples: [ExampleInput]?
    }

    struct ExampleInput: Decodable {
        var text: String
        var label: Int
        var attribute: String?
    }

    struct ActivateInput: Decodable {
        var force: Bool?
    }

    struct Started: Encodable {
        var id: String
        var state = "training"
    }

    func register(in routes: inout Routes) {
        routes.group("/v1/classifiers") { group in
            group.get("", .moderator) { request, _ in
                let limit = try Pagination.limit(request)
                let page = try await service.list(before: try Pagination.after(request), limit: limit)
                return try Response.encoded(ListResponse(name: "classifiers", items: page.items, nextCursor: page.next.map(Pagination.cursor)))
            }
            group.get("/{id}", .moderator) { request, _ in
                try Response.encoded(try await service.get(try request.parameter("id")))
            }
            group.post("/train", .admin, maxBodyBytes: Self.trainBodyLimit) { request, identity in
                let input = request.body.isEmpty ? TrainInput() : try request.decodeJSON(TrainInput.self)
                let trainingRequest = TrainingRequest(base: input.base, includeReviews: input.include_reviews ?? true,
                                                      examples: try Self.examples(input.examples ?? [], maxTextLength: maxTextLength()))
                let id = try await service.train(trainingRequest, by: identity)
                return try Response.encoded(Started(id: id), status: .accepted)
            }
            group.post("/{id}/activate", .admin) { request, identity in
                let input = request.body.isEmpty ? ActivateInput() : try request.decodeJSON(ActivateInput.self)
                return try Response.encoded(try await service.activate(try request.parameter("id"), force: input.force ?? false, by: identity))
            }
        }
    }

    /// The given examples, checked: at most `maxExamples`, each a text of 1 to `maxTextLength`
    /// characters with a label of 0 or 1 and, optionally, an attribute's name.
    static func examples(_ inputs: [ExampleInput], maxTextLength: Int) throws(HTTPError) -> [LabelledText] {
        guard inputs.count <= maxExamples else {
            throw HTTPError.badRequest("invalid_field", "`examples` holds at most \(maxExamples) examples.").keyed("classifiers.too_many", maxExamples)
        }
        var texts: [LabelledText] = []
        texts.reserveCapacity(inputs.count)
        for (index, input) in inputs.enumerated() {
            let length = input.text.unicodeScalars.count
            guard (1...maxTextLength).contains(length), !input.text.allSatisfy(\.isWhitespace) else {
                throw HTTPError.badRequest("invalid_field", "`examples[\(index)].text` must be 1-\(maxTextLength) characters, not blank.")
                    .keyed("classifiers.text", index, maxTextLength)
            }
            guard input.label == 0 || input.label == 1 else {
                throw HTTPError.badRequest("invalid_field", "`examples[\(index)].label` must be 0 or 1.").keyed("classifiers.label", index)
            }
            let attribute = input.attribute ?? LabelledData.defaultAttribute
            guard RuleParams.isAttributeName(attribute) else {
                throw HTTPError.badRequest("invalid_field", "`examples[\(index)].attribute` must be 1-40 characters of a-z, 0-9 and _.")
                    .keyed("classifiers.attribute", index)
            }
            texts.append(LabelledText(text: input.text, label: input.label == 1, attribute: attribute))
        }
        return texts
    }
}

extension ClassifierRefusal {
    var problem: HTTPError {
        switch self {
        case .notFound:
            HTTPError(.notFound, code: "classifier_not_found", detail: "There is no such classifier.")
        case .notReady(let state):
            HTTPError(.conflict, code: "classifier_not_ready", detail: "This classifier is \(state), not ready.", detailArguments: [state])
        case .worseModel(let candidate, let inForce):
            HTTPError(.conflict, code: "worse_model",
                      detail: "Its held-out AUC (\(candidate)) is below the model in force's (\(inForce)); send {\"force\":true} to put it in force anyway.",
                      detailArguments: [String(candidate), String(inForce)])
        case .trainingInProgress:
            HTTPError(.conflict, code: "training_in_progress", detail: "A classifier is being trained; try again when it is done.")
        case .nothingToTrain:
            HTTPError(.unprocessableContent, code: "nothing_to_train",
                      detail: "There is nothing to train on: give examples, or include the reviewed messages.")
        case .unknownBase:
            HTTPError.badRequest("invalid_field", "`base` must be the id of a ready classifier.").keyed("classifiers.base")
        }
    }
}
