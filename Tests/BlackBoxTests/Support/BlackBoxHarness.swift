import Foundation
import TestSupport

/// The `bouncer` binary under test, called through `call` (in turn on each of its instances when
/// the tests run several: see `ServiceProcess.client()`).
final class BlackBoxHarness: @unchecked Sendable {
    let directory: TemporaryDirectory
    let service: ServiceProcess
    private(set) var client: RawHTTPClient
    var tokens: [String: String] = [:]

    /// The service's environment; its tokens are minted with the same.
    let environment: [String: String]

    init(arguments: [String] = [], environment: [String: String] = [:]) throws {
        directory = try TemporaryDirectory()
        self.environment = environment
        let data = directory.path("data")
        for (user, role) in [("alice", "user"), ("bob", "user"), ("mod", "moderator"), ("root", "admin")] {
            tokens[user] = try TestTokens.mint(user, role: role, dataDirectory: data, environment: environment)
        }
        service = try ServiceProcess(arguments: ["--data-dir", data, "--send-rate-per-user", "0"] + arguments, environment: environment)
        client = try service.client()
    }

    /// Mints tokens for more users (moderators when `role` says).
    func addUsers(_ users: [String], role: String = "user") throws {
        for user in users {
            tokens[user] = try TestTokens.mint(user, role: role, dataDirectory: directory.path("data"), environment: environment)
        }
    }

    func call(_ method: String, _ path: String, as user: String, body: String? = nil, language: String? = nil) throws -> RawResponse {
        var headers = ["Authorization": "Bearer \(tokens[user]!)"]
        if body != nil { headers["Content-Type"] = "application/json" }
        if let language { headers["Accept-Language"] = language }
        do {
            return try client.request(method, path, headers: headers, body: body)
        } catch RawHTTPError.closedBeforeResponse(0) where ["GET", "HEAD"].contains(method) {
            // The server closed the kept-alive connection (its idle timeout passed while the
            // test did other things): a read is sent again on a new one, as HTTP clients do.
            client = try service.client()
            return try client.request(method, path, headers: headers, body: body)
        }
    }

    func rule(_ pattern: String, _ action: String) throws {
        let response = try call("POST", "/v1/rules", as: "root", body: #"{"kind":"word","pattern":"\#(pattern)","action":"\#(action)"}"#)
        precondition(response.status == 201, "rule \(pattern): \(response.text)")
    }

    func send(_ text: String, as user: String = "alice", channel: String = "messaging:general", id: String? = nil,
              language: String? = nil) throws -> RawResponse {
        var object: [String: Any] = ["text": text]
        if let id { object["id"] = id }
        let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        return try call("POST", "/v1/channels/\(channel)/messages", as: user, body: body, language: language)
    }
}
