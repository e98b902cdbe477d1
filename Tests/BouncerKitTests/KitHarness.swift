import BouncerKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport

/// The real `bouncer` binary on a temporary data directory, with tokens minted by `bouncer token`,
/// and BouncerKit clients of it (directly, or through a `FaultyProxy`).
final class KitHarness: @unchecked Sendable {
    let directory: TemporaryDirectory
    let service: ServiceProcess
    let tokens: [String: String]

    private init(directory: TemporaryDirectory, service: ServiceProcess, tokens: [String: String]) {
        self.directory = directory
        self.service = service
        self.tokens = tokens
    }

    static func start() async throws -> KitHarness {
        try await blocking {
            let directory = try TemporaryDirectory()
            let data = directory.path("data")
            var tokens: [String: String] = [:]
            for (user, role) in [("alice", "user"), ("bob", "user"), ("mod", "moderator"), ("root", "admin")] {
                tokens[user] = try TestTokens.mint(user, role: role, dataDirectory: data)
            }
            let service = try ServiceProcess(arguments: ["--data-dir", data, "--send-rate-per-user", "0"], instances: 1)
            return KitHarness(directory: directory, service: service, tokens: tokens)
        }
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(service.port)")! }

    /// A BouncerKit client for `user`, in `locale`, straight to the service or through `proxy`.
    func client(_ user: String, locale: String = "en", via proxy: FaultyProxy? = nil, retryPolicy: RetryPolicy = .default) -> BouncerClient {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 20
        return BouncerClient(baseURL: proxy?.baseURL ?? baseURL, tokenProvider: StaticToken(tokens[user]!), locale: locale,
                             retryPolicy: retryPolicy, configuration: configuration)
    }

    /// A request made without BouncerKit (an admin's or a moderator's, or a check of what the
    /// service stored).
    @discardableResult
    func raw(_ method: String, _ path: String, as user: String, body: String? = nil, contentType: String = "application/json") async throws -> RawResponse {
        let port = service.port
        let token = tokens[user]!
        return try await blocking {
            let client = try RawHTTPClient(port: port)
            defer { client.close() }
            var headers = ["Authorization": "Bearer \(token)"]
            if body != nil { headers["Content-Type"] = contentType }
            return try client.request(method, path, headers: headers, body: body)
        }
    }

    func rule(_ pattern: String, _ action: String) async throws {
        let response = try await raw("POST", "/v1/rules", as: "root", body: #"{"kind":"word","pattern":"\#(pattern)","action":"\#(action)"}"#)
        precondition(response.status == 201, "rule \(pattern): \(response.text)")
    }

    /// The ids of the messages `user` sees in `channel` (every page), oldest first.
    func channelIDs(_ channel: String = "messaging:general", as user: String = "mod") async throws -> [String] {
        let response = try await raw("GET", "/v1/channels/\(channel)/messages?limit=200", as: user)
        let messages = response.json?["messages"] as? [[String: Any]] ?? []
        return messages.compactMap { $0["id"] as? String }
    }
}

/// What a task gathers for a test to wait on.
final class Collected<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []
    private var failure: (any Error)?

    func append(_ item: Element) { lock.withLock { items.append(item) } }
    func fail(_ error: any Error) { lock.withLock { failure = error } }
    var all: [Element] { lock.withLock { items } }
    var error: (any Error)? { lock.withLock { failure } }
}
