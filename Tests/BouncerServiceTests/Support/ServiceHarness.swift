import BouncerDomain
import BouncerIdentity
import Foundation
import HTTPServer
import TestSupport
@testable import BouncerService

/// The whole service in the test's process: built by `buildApplication` as `bouncer serve`
/// builds it (a real SQLite store in a temporary directory, the real rules engine, routes,
/// settings and localization), answering requests through `HTTPServer.respond(to:)` without a
/// socket. For a route's behaviour; what happens on the wire is the black-box tests' to check.
final class ServiceHarness: Sendable {
    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }

        /// The body as a JSON object (empty when it is not one).
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        }
    }

    static let secret = "service-harness-secret-service-harness-secret"

    let application: Application
    private let directory: TemporaryDirectory
    private let signer = TokenSigner(secret: Array(secret.utf8))

    init(configure: (inout ServiceConfiguration) -> Void = { _ in }) async throws {
        directory = try TemporaryDirectory()
        var configuration = ServiceConfiguration()
        configuration.dataDirectory = directory.path("data")
        configuration.jwtSecret = Self.secret
        configure(&configuration)
        application = try await buildApplication(configuration, logger: Logger(level: .error))
    }

    func close() async { await application.shutdown() }

    func token(_ user: String, _ role: Role = .user) -> String {
        signer.token(for: Identity(userID: user, role: role))
    }

    /// `json` is serialized as the body, with its Content-Type; `as` signs a token for the user.
    func request(_ method: String, _ path: String, as user: (String, Role)? = nil, json: Any? = nil,
                 headers: [(String, String)] = []) async throws -> Reply {
        var fields: HTTPHeaders = ["host": "bouncer.test"]
        if let (name, role) = user { fields.add("authorization", "Bearer " + token(name, role)) }
        var body: [UInt8] = []
        if let json {
            body = Array(try JSONSerialization.data(withJSONObject: json))
            fields.add("content-type", "application/json")
        }
        for (name, value) in headers { fields.add(name, value) }
        let head = RequestHead(method: method, target: path, version: .http1_1, headers: fields,
                               framing: body.isEmpty ? .none : .length(body.count), keepAlive: true, expectsContinue: false)
        let response = await application.server.respond(to: head, body: body)
        return Reply(status: response.status.code, headers: response.headers, body: response.body)
    }
}
