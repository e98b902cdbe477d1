import BouncerDomain
import BouncerIdentity
import BouncerKit
import BouncerSQLite
import Foundation
import HTTPServer
import Locking
import TestSupport
@testable import BouncerApplication
@testable import BouncerService

/// The whole service in the test's process, built by `buildApplication` and started as
/// `bouncer serve` builds and starts it (the real store, rules engine, routes, settings,
/// localization, webhook deliveries and change following), answering requests through
/// `HTTPServer.respond(to:)` without a socket. For a route's behaviour; what happens on the wire
/// is the black-box tests' to check.
///
/// The store is the run's (`BOUNCER_TEST_STORE`): SQLite in a temporary directory, or a database
/// of its own on the run's PostgreSQL, reached through the pooler when the run has one. With
/// `BOUNCER_TEST_INSTANCES=N` on PostgreSQL the service is N applications on that one database,
/// called in turn, as a load balancer would.
final class ServiceHarness: Sendable {
    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }

        /// The body as a JSON object (nil when it is not one).
        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        }

        /// The body as BouncerKit's model of it (a `Message`, a `Flag`, ...), as an app decodes it.
        func decoded<Model: Decodable>(_ model: Model.Type) throws -> Model {
            try JSONDecoder().decode(Model.self, from: Data(body))
        }

        /// The body's list `name` (`{"<name>": [...], "next_cursor": ...}`) as BouncerKit's models.
        func decodedList<Model: Decodable>(_ name: String, of model: Model.Type) throws -> [Model] {
            let decoder = JSONDecoder()
            decoder.userInfo[ListBody<Model>.nameKey] = name
            return try decoder.decode(ListBody<Model>.self, from: Data(body)).items
        }

        func header(_ name: String) -> String? { headers[name] }
    }

    static let secret = "service-harness-secret-service-harness-secret"

    /// The instances; one unless the run asks for several.
    let applications: [Application]
    /// The first instance.
    var application: Application { applications[0] }
    /// The service's PostgreSQL database, when the run is on PostgreSQL.
    let database: PostgresTestDatabase?
    let directory: TemporaryDirectory
    private let signer = TokenSigner(secret: Array(secret.utf8))
    private let roles = Locked<[String: Role]>(["alice": .user, "bob": .user, "mod": .moderator, "root": .admin])
    private let turn = Locked(0)
    private let closed = Locked(false)

    /// `configure` adjusts the configuration after the harness's own choices: a send rate of
    /// none (tests send faster than a person), any port on loopback, and the run's store.
    init(configure: (inout ServiceConfiguration) -> Void = { _ in }) async throws {
        directory = try TemporaryDirectory()
        var configuration = ServiceConfiguration()
        configuration.dataDirectory = directory.path("data")
        configuration.jwtSecret = Self.secret
        configuration.port = 0
        configuration.sendRatePerUser = 0
        // psql runs as a process waited for: on a thread of its own, not one of the few that
        // Swift concurrency shares with every test running beside this one.
        database = TestStore.isPostgres ? try await blocking { try PostgresTestDatabase() } : nil
        if let database {
            configuration.databaseURL = database.pooledURL ?? database.url
            configuration.databaseListenURL = database.pooledURL == nil ? nil : database.url
        }
        configure(&configuration)
        // Opening a store connects and migrates synchronously, as `bouncer serve` does before it
        // listens: one harness at a time, so one shared thread at most is held by it.
        await Self.starts.acquire()
        do {
            applications = try await Self.startApplications(configuration)
            Self.starts.release()
        } catch {
            Self.starts.release()
            try? await blocking { [database] in try database?.drop() }
            throw error
        }
    }

    private static let starts = AsyncSlots(1)

    private static func startApplications(_ configuration: ServiceConfiguration) async throws -> [Application] {
        let logger = Logger(level: .error)
        var started: [Application] = []
        do {
            for _ in 0..<ServiceProcess.defaultInstances {
                let application = try await buildApplication(configuration, logger: logger)
                started.append(application)
                try application.start()
            }
        } catch {
            for application in started { await application.shutdown() }
            throw error
        }
        return started
    }

    func close() async {
        guard takeClosing() else { return }
        await Self.stop(applications, database)
    }

    /// Stops the instances, then drops their database.
    private static func stop(_ applications: [Application], _ database: PostgresTestDatabase?) async {
        for application in applications { await application.shutdown() }
        if let database { _ = try? await blocking { try database.drop() } }
    }

    /// True for the one caller that is to shut the instances down.
    private func takeClosing() -> Bool {
        closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
    }

    /// A test that ends without `close()` still stops its instances, and drops the database
    /// after them.
    deinit {
        guard takeClosing() else { return }
        Task.detached { [applications, database] in await Self.stop(applications, database) }
    }

    /// Lets `users` call with `role` (alice and bob are users, mod a moderator, root an admin).
    func addUsers(_ users: [String], role: Role = .user) {
        roles.withLock { roles in for user in users { roles[user] = role } }
    }

    func token(_ user: String, _ role: Role = .user) -> String {
        signer.token(for: Identity(userID: user, role: role))
    }

    /// The request as `user`, with the role given them (a user unless said otherwise); `body` is
    /// sent as JSON.
    func call(_ method: String, _ path: String, as user: String, body: String? = nil, language: String? = nil) async throws -> Reply {
        let role = roles.withLock { $0[user] } ?? .user
        var headers: [(String, String)] = []
        if let language { headers.append(("accept-language", language)) }
        return try await send(method, path, token: token(user, role), body: body.map { Array($0.utf8) } ?? [], headers: headers)
    }

    /// `json` is serialized as the body, with its Content-Type; `as` signs a token for the user.
    func request(_ method: String, _ path: String, as user: (String, Role)? = nil, json: Any? = nil,
                 headers: [(String, String)] = []) async throws -> Reply {
        let body = try json.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
        return try await send(method, path, token: user.map { token($0.0, $0.1) }, body: body, headers: headers)
    }

    /// `body` sent as it is (a chat server's signed body), with `headers` and no token.
    func post(_ path: String, body: String, headers: [(String, String)]) async throws -> Reply {
        try await send("POST", path, token: nil, body: Array(body.utf8), headers: headers)
    }

    /// Adds a word rule, as root.
    func rule(_ pattern: String, _ action: String) async throws {
        let reply = try await call("POST", "/v1/rules", as: "root", body: #"{"kind":"word","pattern":"\#(pattern)","action":"\#(action)"}"#)
        guard reply.status == 201 else { throw HarnessError(description: "rule \(pattern): \(reply.status) \(reply.text)") }
    }

    /// Sends a message to `channel` as `user`.
    func send(_ text: String, as user: String = "alice", channel: String = "messaging:general", id: String? = nil,
              language: String? = nil) async throws -> Reply {
        var object: [String: Any] = ["text": text]
        if let id { object["id"] = id }
        let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        return try await call("POST", "/v1/channels/\(channel)/messages", as: user, body: body, language: language)
    }

    /// The flags filed on a message, read from the store itself.
    func flags(on id: String) throws -> [NewFlag] {
        if let database {
            let output = try PostgresTestDatabase.psql(database.url, """
                SELECT id, reporter_id, reason, coalesce(rule_id, ''), created_at FROM flags WHERE message_id = '\(id)' ORDER BY id
                """)
            return output.split(separator: "\n").map { line in
                let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                return NewFlag(id: fields[0], messageID: id, channelID: "", reporterID: fields[1], reason: fields[2],
                               ruleID: fields[3].isEmpty ? nil : fields[3], createdAt: fields[4])
            }
        }
        let database = try SQLiteDatabase(path: directory.path("data/bouncer.sqlite3"), mode: .readOnly)
        return try database.fetchAll("SELECT id, reporter_id, reason, rule_id, created_at FROM flags WHERE message_id = ? ORDER BY id",
                                     [.text(id)]).map { row in
            NewFlag(id: try row.decode("id"), messageID: id, channelID: "", reporterID: try row.decode("reporter_id"),
                    reason: try row.decode("reason"), ruleID: try row.decodeIfPresent("rule_id"), createdAt: try row.decode("created_at"))
        }
    }

    /// Each request goes to the next instance in turn; with several, a change (any method but
    /// GET and HEAD) is answered once every instance has it in force, as `level` finds.
    private func send(_ method: String, _ path: String, token: String?, body: [UInt8], headers: [(String, String)]) async throws -> Reply {
        var fields: HTTPHeaders = ["host": "bouncer.test"]
        if let token { fields.add("authorization", "Bearer " + token) }
        if !body.isEmpty { fields.add("content-type", "application/json") }
        for (name, value) in headers { fields.add(name, value) }
        let head = RequestHead(method: method, target: path, version: .http1_1, headers: fields,
                               framing: body.isEmpty ? .none : .length(body.count), keepAlive: true, expectsContinue: false)
        let instance = turn.withLock { turn in
            defer { turn += 1 }
            return applications[turn % applications.count]
        }
        let started = ContinuousClock.now
        let reply = Self.overTheWire ? try await Self.wire(head, body, port: instance.server.port)
            : await Self.inProcess(head, body, instance)
        if applications.count > 1 && !["GET", "HEAD"].contains(method) {
            // Within a second, or, for a change that took long where it was made (a large import
            // compiles for seconds), within that time again.
            try await level(timeout: max(.seconds(1), (ContinuousClock.now - started) * 2))
        }
        return reply
    }

    /// Whether the run sends each request over a loopback socket (`BOUNCER_TEST_TRANSPORT=wire`).
    static let overTheWire = ProcessInfo.processInfo.environment["BOUNCER_TEST_TRANSPORT"] == "wire"

    private static func inProcess(_ head: RequestHead, _ body: [UInt8], _ instance: Application) async -> Reply {
        let response = await instance.server.respond(to: head, body: body)
        return Reply(status: response.status.code, headers: response.headers, body: response.body)
    }

    /// The request written to the instance's port as the head and body say, on a connection of its
    /// own, and the response read back.
    private static func wire(_ head: RequestHead, _ body: [UInt8], port: Int) async throws -> Reply {
        let client = try await RawHTTPClient.connect(port: port)
        defer { client.close() }
        var text = "\(head.method) \(head.target) HTTP/1.1\r\n"
        for (name, value) in head.headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty { text += "content-length: \(body.count)\r\n" }
        try await client.send(Array((text + "\r\n").utf8) + body, timeout: .seconds(20))
        let response = try await client.readResponse(timeout: .seconds(20), expectBody: head.method != "HEAD")
        var headers = HTTPHeaders()
        for (name, value) in response.headers { headers.add(name, value) }
        return Reply(status: response.status, headers: headers, body: response.body)
    }

    /// Waits until every instance has the same versions of the shared state in force (rules,
    /// settings, overrides, bans: the `bouncer_*_version` gauges of `/metrics`).
    func level(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while true {
            var all: [[String: Double]] = []
            for application in applications { all.append(await Self.versions(application)) }
            if all.allSatisfy({ $0 == all[0] }) { return }
            guard ContinuousClock.now < deadline else {
                throw HarnessError(description: "the instances did not agree within \(timeout): \(all)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    private static func versions(_ application: Application) async -> [String: Double] {
        let head = RequestHead(method: "GET", target: "/metrics", version: .http1_1, headers: ["host": "bouncer.test"],
                               framing: .none, keepAlive: true, expectsContinue: false)
        let page = await application.server.respond(to: head, body: [])
        return ServiceCluster.versions(inMetrics: String(decoding: page.body, as: UTF8.self))
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
}

/// A list answer's items under the member the decoder's `userInfo` names.
private struct ListBody<Model: Decodable>: Decodable {
    static var nameKey: CodingUserInfoKey { CodingUserInfoKey(rawValue: "list")! }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    var items: [Model]

    init(from decoder: any Decoder) throws {
        guard let name = decoder.userInfo[Self.nameKey] as? String else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no list member named"))
        }
        items = try decoder.container(keyedBy: Key.self).decode([Model].self, forKey: Key(stringValue: name))
    }
}
