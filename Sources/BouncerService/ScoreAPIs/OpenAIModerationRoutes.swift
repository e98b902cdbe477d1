import BouncerApplication
import BouncerDomain
import HTTPServer
import JSON

/// OpenAI's moderation endpoint, `POST /v1/moderations`, served from the model in force, so that
/// clients of OpenAI's SDKs switch by changing `base_url` (the token as a bearer; moderators and
/// admins). Each of OpenAI's categories that one of the model's attributes means is scored by
/// it; the others are false with score 0. A category is flagged at the lowest threshold of the
/// enforced score rules of its attribute, or at 0.5. Stores nothing.
struct OpenAIModerationRoutes: Sendable {
    let scoring: HarmScoring
    let localization: Localization
    let metrics: Metrics

    /// Most texts one call may score.
    static let maxInputs = 100

    /// OpenAI's categories, in its order.
    static let categories = ["harassment", "harassment/threatening", "hate", "hate/threatening", "illicit", "illicit/violent",
                             "self-harm", "self-harm/instructions", "self-harm/intent", "sexual", "sexual/minors", "violence",
                             "violence/graphic"]

    /// Which model attribute means which category (docs/INTEGRATIONS.md lists them).
    static let attributeOfCategory = ["harassment": "toxicity", "harassment/threatening": "threat", "hate": "identity_attack",
                                      "sexual": "sexually_explicit", "self-harm": "self_harm", "violence": "violence"]

    func register(in routes: inout Routes) {
        let (scoring, localization, metrics) = (self.scoring, self.localization, self.metrics)
        routes.foreign("POST", "/v1/moderations", .moderator, tokenQuery: "api_key", maxBodyBytes: 4 << 20,
                       refuse: { error, request in
                           metrics.add(ServiceMetric.scoringRequests, "openai", "refused")
                           return ForeignErrors.openAI(error, request, localization, param: error.code == "invalid_input" ? "input" : nil)
                       }) { request, _ throws(HTTPError) in
            let (answer, count) = try Self.moderate(request.body, scoring: scoring)
            metrics.add(ServiceMetric.scoringRequests, "openai", "scored")
            metrics.add(ServiceMetric.scoredTexts, "openai", Double(count))
            return Response.json(.ok, answer)
        }
    }

    static func invalid(_ detail: String, key: String, _ arguments: [any CustomStringConvertible] = []) -> HTTPError {
        HTTPError.badRequest("invalid_input", detail).keyed(key, arguments: arguments.map(\.description))
    }

    /// The texts of `input`: a string, an array of strings, or an array of `{"type":"text","text"}` parts.
    static func texts(_ input: JSONValue?) throws(HTTPError) -> [String] {
        let items: [JSONValue]
        switch input {
        case .string(let text)?: items = [.string(text)]
        case .array(let elements)?: items = elements
        default: throw invalid("input must be a string or an array of strings.", key: "scores.input")
        }
        guard !items.isEmpty else { throw invalid("input must be a string or an array of strings.", key: "scores.input") }
        guard items.count <= maxInputs else { throw invalid("At most \(maxInputs) texts may be scored in one call.", key: "scores.too_many", [maxInputs]) }
        var texts: [String] = []
        for item in items {
            let text: String
            if let string = item.stringValue {
                text = string
            } else if item["type"]?.stringValue == "text", let part = item["text"]?.stringValue {
                text = part
            } else {
                throw invalid("input must be a string or an array of strings.", key: "scores.input")
            }
            guard !text.unicodeScalars.allSatisfy(\.properties.isWhitespace) else { throw invalid("The text is empty.", key: "scores.empty") }
            guard text.utf8.count <= HarmScoring.maxTextBytes else {
                throw invalid("A text is longer than \(HarmScoring.maxTextBytes) bytes.", key: "scores.too_long", [HarmScoring.maxTextBytes])
            }
            texts.append(text)
        }
        return texts
    }

    static func moderate(_ body: [UInt8], scoring: HarmScoring) throws(HTTPError) -> (answer: [UInt8], count: Int) {
        let request: JSONValue
        do {
            request = try StrictJSONParser.parse(body, maxDepth: 8)
        } catch {
            throw invalid("The request body is not JSON: \(error).", key: "scores.json", ["\(error)"])
        }
        guard case .object = request else { throw invalid("input must be a string or an array of strings.", key: "scores.input") }
        if let model = request["model"], model.stringValue == nil || model.stringValue!.utf8.count > 200 {
            throw HTTPError.badRequest("invalid_model", "model must be a model's name.").keyed("scores.model")
        }
        let texts = try Self.texts(request["input"])
        guard let model = scoring.classifier.model else { throw HTTPError.badRequest("invalid_model", "Harm scores are off on this service.").keyed("scores.off") }
        let thresholds = Dictionary(uniqueKeysWithValues: model.attributes.map { ($0, scoring.flagThreshold($0)) })
        var out: [UInt8] = []
        JSONText.appendMember(#"{"id":"#, "modr-" + TimeOrderedID.make(), to: &out)
        JSONText.appendMember(#","model":"#, model.info.id, to: &out)
        out.append(contentsOf: #","results":["#.utf8)
        for (index, text) in texts.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            let scores = model.scores(text)
            var flags: [Bool] = [], values: [Double] = []
            for category in categories {
                let attributeIndex = attributeOfCategory[category].flatMap { model.attributes.firstIndex(of: $0) }
                let score = attributeIndex.map { scores[$0] } ?? 0
                values.append(ScoresJSON.rounded(score))
                flags.append(attributeIndex.map { score >= thresholds[model.attributes[$0]]! } ?? false)
            }
            out.append(contentsOf: (flags.contains(true) ? #"{"flagged":true,"categories":{"# : #"{"flagged":false,"categories":{"#).utf8)
            for (position, category) in categories.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendString(category, to: &out)
                out.append(contentsOf: (flags[position] ? ":true" : ":false").utf8)
            }
            out.append(contentsOf: #"},"category_scores":{"#.utf8)
            for (position, category) in categories.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendString(category, to: &out)
                out.append(UInt8(ascii: ":"))
                JSONText.appendNumber(values[position], to: &out)
            }
            out.append(contentsOf: #"},"category_applied_input_types":{"#.utf8)
            for (position, category) in categories.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendString(category, to: &out)
                out.append(contentsOf: #":["text"]"#.utf8)
            }
            out.append(contentsOf: "}}".utf8)
        }
        out.append(contentsOf: "]}".utf8)
        return (out, texts.count)
    }
}
