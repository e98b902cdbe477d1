import BouncerApplication
import BouncerClassifier
import BouncerModeration
import Foundation
import HTTPServer
import JSON

/// Google's Perspective API (`commentanalyzer`, v1alpha1), served from the model in force, so that
/// its users switch by changing a URL and a key: `POST /v1alpha1/comments:analyze` (the token as
/// `?key=` or a bearer; moderators and admins) and the discovery document Google's client
/// libraries build a client from. Stores nothing.
struct PerspectiveRoutes: Sendable {
    let scoring: HarmScoring
    let localization: Localization
    let metrics: Metrics

    /// Most attributes one request may ask for.
    static let maxAttributes = 32

    func register(in routes: inout Routes) {
        let (scoring, localization, metrics) = (self.scoring, self.localization, self.metrics)
        routes.foreign("POST", "/v1alpha1/comments:analyze", .moderator, tokenQuery: "key", maxBodyBytes: 1 << 20,
                       refuse: { error, request in
                           metrics.add(ServiceMetric.scoringRequests, "perspective", "refused")
                           return ForeignErrors.google(error, request, localization)
                       }) { request, _ throws(HTTPError) in
            let answer = try Self.analyze(request.body, scoring: scoring)
            metrics.add(ServiceMetric.scoringRequests, "perspective", "scored")
            metrics.add(ServiceMetric.scoredTexts, "perspective")
            return Response.json(.ok, answer)
        }
        routes.open("GET", "/$discovery/rest", .immediate { request in
            guard (request.query("version") ?? "v1alpha1") == "v1alpha1" else {
                return ForeignErrors.google(HTTPError(.notFound, code: "not_found", detail: "There is nothing at this path."), request, localization)
            }
            return Response.json(.ok, PerspectiveDiscovery.document(rootURL: Self.rootURL(request)))
        })
    }

    /// The service's own address as the caller reached it, for the discovery document's `rootUrl`.
    static func rootURL(_ request: Request) -> String {
        let host = request.headers["host"] ?? "127.0.0.1"
        let scheme = request.headers["x-forwarded-proto"] == "https" ? "https" : "http"
        return "\(scheme)://\(host)/"
    }

    static func invalid(_ detail: String, key: String, _ arguments: [any CustomStringConvertible] = []) -> HTTPError {
        HTTPError.badRequest("invalid_argument", detail).keyed(key, arguments: arguments.map(\.description))
    }

    /// The answer to an `AnalyzeCommentRequest`, or the refusal of a request that cannot be scored.
    static func analyze(_ body: [UInt8], scoring: HarmScoring) throws(HTTPError) -> [UInt8] {
        let request: JSONValue
        do {
            request = try StrictJSONParser.parse(body, maxDepth: 8)
        } catch {
            throw invalid("The request body is not JSON: \(error).", key: "scores.json", ["\(error)"])
        }
        guard case .object = request, case .object? = request["comment"], let text = request["comment"]?["text"]?.stringValue else {
            throw invalid("comment.text is required.", key: "scores.comment_text")
        }
        guard !text.unicodeScalars.allSatisfy(\.properties.isWhitespace) else { throw invalid("comment.text is empty.", key: "scores.comment_empty") }
        guard text.utf8.count <= HarmScoring.maxTextBytes else {
            throw invalid("comment.text is longer than \(HarmScoring.maxTextBytes) bytes.", key: "scores.comment_too_long", [HarmScoring.maxTextBytes])
        }
        guard case .object(let requested)? = request["requestedAttributes"], !requested.isEmpty else {
            throw invalid("requestedAttributes must name at least one attribute.", key: "scores.no_attributes")
        }
        guard requested.count <= maxAttributes else {
            throw invalid("requestedAttributes names more than \(maxAttributes) attributes.", key: "scores.too_many_attributes", [maxAttributes])
        }
        let model = scoring.classifier.model
        let known = model?.attributes ?? []
        var attributes: [(name: String, index: Int, threshold: Double?)] = []
        for name in requested.keys {
            guard let index = known.firstIndex(of: name.lowercased()) else {
                throw invalid("Attribute \(name) is not supported; this service scores \(known.map { $0.uppercased() }.joined(separator: ", ")).",
                              key: "scores.unknown_attribute", [name, known.map { $0.uppercased() }.joined(separator: ", ")])
            }
            let threshold = requested[name]?["scoreThreshold"]?.numberValue
            attributes.append((name, index, threshold))
        }
        var languages = known.isEmpty ? [] : model!.info.languages
        if case .array(let asked)? = request["languages"], !asked.isEmpty {
            let tags = asked.compactMap(\.stringValue).map { $0.lowercased() }
            guard tags.contains(where: { tag in languages.contains { tag == $0 || tag.hasPrefix($0 + "-") } }) else {
                throw invalid("The attributes do not support the request's languages: \(tags.joined(separator: ", ")); they support \(languages.joined(separator: ", ")).",
                              key: "scores.languages", [tags.joined(separator: ", "), languages.joined(separator: ", ")])
            }
            languages = tags
        }
        guard let model else { throw invalid("Harm scores are off on this service.", key: "scores.off") }
        let perSentence = request["spanAnnotations"] == .bool(true)
        let whole = model.scores(text)
        let spans = perSentence ? SentenceSpans.spans(text).map { ($0.begin, $0.end, model.scores($0.text)) }
            : [(0, text.utf16.count, whole)]

        var out: [UInt8] = []
        out.reserveCapacity(256)
        out.append(contentsOf: #"{"attributeScores":{"#.utf8)
        var first = true
        for attribute in attributes {
            // Perspective leaves out an attribute scored below the threshold asked for.
            if let threshold = attribute.threshold, whole[attribute.index] < threshold { continue }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONText.appendString(attribute.name, to: &out)
            out.append(contentsOf: #":{"spanScores":["#.utf8)
            for (position, span) in spans.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: #"{"begin":\#(span.0),"end":\#(span.1),"score":"#.utf8)
                appendScore(span.2[attribute.index], to: &out)
                out.append(UInt8(ascii: "}"))
            }
            out.append(contentsOf: #"],"summaryScore":"#.utf8)
            appendScore(whole[attribute.index], to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: #"},"languages":"#.utf8)
        JSONValue.array(languages.map(JSONValue.string)).write(to: &out)
        out.append(contentsOf: #","detectedLanguages":"#.utf8)
        JSONValue.array(model.info.languages.map(JSONValue.string)).write(to: &out)
        if let token = request["clientToken"]?.stringValue {
            JSONText.appendMember(#","clientToken":"#, token, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    private static func appendScore(_ value: Double, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"value":"#.utf8)
        JSONText.appendNumber(ScoresJSON.rounded(value), to: &out)
        out.append(contentsOf: #","type":"PROBABILITY"}"#.utf8)
    }
}
