import BouncerApplication
import HTTPServer
import JSON

/// Refusals in the error shapes of the APIs Bouncer serves for other services' clients, with the
/// detail in the request's language.
enum ForeignErrors {
    /// Google's: `{"error":{"code":400,"message":"...","status":"INVALID_ARGUMENT"}}`.
    static func google(_ error: HTTPError, _ request: Request, _ localization: Localization) -> Response {
        google(error, detail: LocalizedProblemRenderer.detail(error, in: localization.choice(for: request.head)))
    }

    static func google(_ error: HTTPError, detail: String) -> Response {
        let status = switch error.status.code {
        case 400, 413, 422: "INVALID_ARGUMENT"
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 429: "RESOURCE_EXHAUSTED"
        case 503: "UNAVAILABLE"
        default: "INTERNAL"
        }
        var body: [UInt8] = []
        body.append(contentsOf: #"{"error":{"code":"#.utf8)
        body.append(contentsOf: String(error.status.code).utf8)
        JSONText.appendMember(#","message":"#, detail, to: &body)
        JSONText.appendMember(#","status":"#, status, to: &body)
        body.append(contentsOf: "}}".utf8)
        return answer(error, body)
    }

    /// OpenAI's: `{"error":{"message":"...","type":"invalid_request_error","param":...,"code":...}}`.
    static func openAI(_ error: HTTPError, _ request: Request, _ localization: Localization, param: String? = nil) -> Response {
        openAI(error, detail: LocalizedProblemRenderer.detail(error, in: localization.choice(for: request.head)), param: param)
    }

    static func openAI(_ error: HTTPError, detail: String, param: String? = nil) -> Response {
        let code: String? = switch error.status.code {
        case 401: "invalid_api_key"
        case 403: "insufficient_role"
        case 429: "rate_limit_exceeded"
        default: nil
        }
        var body: [UInt8] = []
        JSONText.appendMember(#"{"error":{"message":"#, detail, to: &body)
        JSONText.appendMember(#","type":"#, error.status.code >= 500 ? "server_error" : "invalid_request_error", to: &body)
        body.append(contentsOf: #","param":"#.utf8)
        if let param { JSONText.appendString(param, to: &body) } else { body.append(contentsOf: "null".utf8) }
        body.append(contentsOf: #","code":"#.utf8)
        if let code { JSONText.appendString(code, to: &body) } else { body.append(contentsOf: "null".utf8) }
        body.append(contentsOf: "}}".utf8)
        return answer(error, body)
    }

    /// The paths whose every error, the server's own too (a body too large), has the shape of
    /// the API they belong to.
    static func owns(_ path: some StringProtocol) -> Bool { path.hasPrefix("/v1alpha1/") || path == "/v1/moderations" }

    static func response(for path: some StringProtocol, _ error: HTTPError, detail: String) -> Response? {
        if path.hasPrefix("/v1alpha1/") { return google(error, detail: detail) }
        if path == "/v1/moderations" { return openAI(error, detail: detail) }
        return nil
    }

    private static func answer(_ error: HTTPError, _ body: [UInt8]) -> Response {
        var response = Response.json(error.status, body)
        for (name, value) in error.headers { response.headers.set(name, value) }
        return response
    }
}
