/// Every error a connection answers with becomes its response here: problem JSON (RFC 9457) with
/// the status, body and headers the server's `ProblemRenderer` gives it.
extension ServerContext {
    /// A handler's outcome as the response to send: the one it made, or its error rendered.
    func response(_ outcome: Result<Response, any Error>, to request: Request) -> Response {
        switch outcome {
        case .success(let response): response
        case .failure(let error): render(error, request: request)
        }
    }

    /// The response for an error a handler threw: problem JSON for an `HTTPError`, and a 500 that
    /// says nothing of the cause for anything else (the cause goes to the log).
    func render(_ error: any Error, request: Request) -> Response {
        if let error = error as? HTTPError {
            return problemRenderer.render(error, for: request.head, requestID: request.id)
        }
        if let known = problemRenderer.problem(for: error) {
            return problemRenderer.render(known, for: request.head, requestID: request.id)
        }
        events.failure("request failed: \(String(describing: error))", request.id)
        let internalError = HTTPError(.internalServerError, code: "internal_error",
                                      detail: "The server could not complete the request.")
        return problemRenderer.render(internalError, for: request.head, requestID: request.id)
    }

    /// The response for a request the connection itself refuses before it is whole (it could not
    /// be parsed, was too large, or too slow), rendered with its head when that was read.
    func render(_ error: HTTPError, head: RequestHead? = nil, requestID: String) -> Response {
        problemRenderer.render(error, for: head, requestID: requestID)
    }
}

extension HTTPError {
    /// The path exists, but not for this method.
    static func methodNotAllowed(_ method: String, allowed: [String]) -> HTTPError {
        let allowedList = allowed.joined(separator: ", ")
        var error = HTTPError(.methodNotAllowed, code: "method_not_allowed",
                              detail: "\(method) is not allowed here; allowed: \(allowedList).",
                              detailArguments: [method, allowedList])
        error.headers.set("Allow", allowedList)
        return error
    }

    /// A body larger than its route takes.
    static func bodyTooLarge(_ limit: Int) -> HTTPError { HTTPError(HTTPRequestParser.bodyTooLarge(limit)) }

    /// A head or body not received within its timeout.
    static let requestTimeout = HTTPError(.requestTimeout, code: "request_timeout", detail: "The request was not received in time.")

    /// A body below the minimum average rate once its grace has passed.
    static let bodyTooSlow = HTTPError(.requestTimeout, code: "body_too_slow",
                                       detail: "The request body arrived slower than the server accepts.")
}

extension Result where Failure == any Error {
    /// What an async `body` returns or throws.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
