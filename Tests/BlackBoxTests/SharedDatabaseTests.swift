import Foundation
import Testing
import TestSupport

/// Several instances of the binary on one PostgreSQL database, as behind a load balancer: what
/// one instance changes is in force on the others within a second, a user's send rate holds in
/// total, and races between instances come out as they do on one.
@Suite(.postgresOnly, .oneInstance, .serialized)
struct SharedDatabaseTests {
    final class Cluster: @unchecked Sendable {
        let directory: TemporaryDirectory
        let cluster: ServiceCluster
        var tokens: [String: String] = [:]

        init(count: Int, arguments: [String] = ["--send-rate-per-user", "0"]) throws {
            directory = try TemporaryDirectory()
            let data = directory.path("data")
            for (user, role) in [("alice", "user"), ("bob", "user"), ("mod", "moderator"), ("root", "admin")] {
                tokens[user] = try TestTokens.mint(user, role: role, dataDirectory: data)
            }
            cluster = try ServiceCluster(count: count, dataDirectory: data, arguments: arguments)
        }

        subscript(index: Int) -> ServiceProcess { cluster.instances[index] }

        func call(_ instance: Int, _ method: String, _ path: String, as user: String, body: String? = nil,
                  language: String? = nil) throws -> RawResponse {
            var headers = ["Authorization": "Bearer \(tokens[user]!)"]
            if body != nil { headers["Content-Type"] = "application/json" }
            if let language { headers["Accept-Language"] = language }
            let client = try self[instance].client()
            defer { client.close() }
            return try client.request(method, path, headers: headers, body: body)
        }

        func send(_ instance: Int, _ text: String, as user: String = "alice", id: String? = nil) throws -> RawResponse {
            var object: [String: Any] = ["text": text]
            if let id { object["id"] = id }
            let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            return try call(instance, "POST", "/v1/channels/messaging:general/messages", as: user, body: body)
        }

        /// Waits, for at most `limit`, until `condition` holds on `instance`; returns how long it took.
        @discardableResult
        func until(_ instance: Int, within limit: Duration = .seconds(1), _ condition: () throws -> Bool) throws -> Duration {
            let started = ContinuousClock.now
            while try !condition() {
                guard ContinuousClock.now - started < TestTiming.scaled(limit) else {
                    throw NotFollowed(description: "instance \(instance) did not follow within \(limit)")
                }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return ContinuousClock.now - started
        }
    }

    static func moderation(_ response: RawResponse) -> String? {
        (response.json?["moderation"] as? [String: Any])?["action"] as? String
    }

    @Test func aChangeMadeThroughOneInstanceIsInForceOnTheOthersWithinASecond() throws {
        let c = try Cluster(count: 3)
        // A rule added through the first instance bounces on the other two.
        #expect(try c.call(0, "POST", "/v1/rules", as: "root", body: #"{"kind":"word","pattern":"pineapple","action":"bounce"}"#).status == 201)
        for instance in [1, 2] {
            try c.until(instance) { Self.moderation(try c.send(instance, "I like pineapple")) == "bounce" }
        }
        // A setting changed through the second is in force on the first.
        #expect(try c.call(1, "PATCH", "/v1/config", as: "root", body: #"{"max_message_length":10}"#).status == 200)
        try c.until(0) { try c.send(0, "far more than ten characters").status == 400 }
        // An override set through the third is what the first answers with.
        #expect(try c.call(2, "PUT", "/v1/localization/de", as: "root",
                           body: #"{"strings":{"message.moderation.alert.title":"Wirklich?"}}"#).status == 200)
        try c.until(0) {
            try c.call(0, "GET", "/v1/localization?keys=message.moderation.alert.title", as: "alice", language: "de").text.contains("Wirklich?")
        }
        // A ban through one instance stops sends through another; lifting it lets them through.
        #expect(try c.call(0, "POST", "/v1/users/bob/ban", as: "mod", body: "{}").status == 201)
        try c.until(2) { try c.send(2, "hello", as: "bob").status == 403 }
        #expect(try c.call(1, "DELETE", "/v1/users/bob/ban", as: "mod").status == 204)
        try c.until(2) { try c.send(2, "hello", as: "bob").status == 201 }
        try c.cluster.level()
        // Each instance compiled each rule change once: its own at the change, the others' at the reload.
        let reloads = try c.cluster.instances.map { try ServiceCluster.versions($0)["bouncer_rules_version"] }
        #expect(reloads.allSatisfy { $0 == 1 })
    }

    @Test func aChangeWhoseNotificationWasMissedIsFoundByTheVersionCheck() throws {
        let c = try Cluster(count: 2)
        let database = try #require(c[0].database)
        // Every listening connection is cut (the instances connect again within a second); a
        // change made meanwhile is announced to no one.
        _ = try PostgresTestDatabase.psql(database.url, """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND datname = current_database()
            """)
        #expect(try c.call(0, "POST", "/v1/rules", as: "root", body: #"{"kind":"word","pattern":"durian","action":"bounce"}"#).status == 201)
        try c.until(1) { Self.moderation(try c.send(1, "durian again")) == "bounce" }
    }

    @Test func aUserSpreadingSendsOverThreeInstancesGetsTheRateOnce() throws {
        let c = try Cluster(count: 3, arguments: [])
        // One message a second, a burst of two.
        #expect(try c.call(0, "PATCH", "/v1/config", as: "root", body: #"{"send_rate_per_user":1}"#).status == 200)
        try c.cluster.level()
        var statuses: [Int] = []
        for index in 0..<12 { statuses.append(try c.send(index % 3, "message \(index)").status) }
        // Twelve sends in well under a second: the burst of two and at most one refilled token.
        #expect((2...3).contains(statuses.filter { $0 == 201 }.count), "\(statuses)")
        #expect(statuses.filter { $0 == 429 }.count >= 9)
        #expect(try c.send(1, "bob's own", as: "bob").status == 201, "another user's bucket is untouched")
    }

    @Test func aFloodSpreadOverThreeInstancesIsCaughtAtItsThreshold() throws {
        let c = try Cluster(count: 3)
        #expect(try c.call(0, "POST", "/v1/rules", as: "root",
                           body: #"{"kind":"flood","action":"bounce","params":{"threshold":6,"window_seconds":60,"similarity":"similar"}}"#).status == 201)
        #expect(try c.call(1, "POST", "/v1/rules", as: "root",
                           body: #"{"kind":"links","action":"bounce","params":{"max":2,"window_seconds":60}}"#).status == 201)
        try c.cluster.level()
        // Each instance sees two of the six; together they are a flood.
        let states = try (1...6).map { index in
            Self.state(try c.send(index % 3, "Get free followers now, visit my profile today \(index)"))
        }
        #expect(states.prefix(5).allSatisfy { $0 == "delivered" }, "\(states)")
        #expect(states.last == "bounced")
        #expect(Self.state(try c.send(2, "Get free followers now, visit my profile today", as: "bob")) == "delivered")
        // Links are counted over the instances too: a third link in the window is one too many.
        #expect(Self.state(try c.send(0, "see example.com", as: "bob")) == "delivered")
        #expect(Self.state(try c.send(1, "and example.org", as: "bob")) == "delivered")
        #expect(Self.state(try c.send(2, "last one example.net", as: "bob")) == "bounced")
    }

    static func state(_ response: RawResponse) -> String? { response.json?["state"] as? String }

    @Test func aRetriedSendAndAFlagRacingThroughTwoInstancesAreKeptOnce() async throws {
        let c = try Cluster(count: 2)
        // The same client id sent through both instances at once, ten times over.
        let sent = LockedIDs()
        await BlockingWorkers(count: 10) { index in sent.add(String((try? c.send(index % 2, "only once", id: "client-1").status) ?? 0)) }.join()
        #expect(sent.all.allSatisfy { ["200", "201"].contains($0) }, "\(sent.all)")
        #expect(sent.all.filter { $0 == "201" }.count == 1)
        let page = try c.call(1, "GET", "/v1/channels/messaging:general/messages", as: "mod")
        #expect((page.json?["messages"] as? [Any])?.count == 1)
        // Bob flags it through both at once: one flag.
        let flagged = LockedIDs()
        await BlockingWorkers(count: 10) { index in
            flagged.add(String((try? c.call(index % 2, "POST", "/v1/messages/client-1/flag", as: "bob", body: #"{"reason":"spam"}"#).status) ?? 0))
        }.join()
        #expect(flagged.all.allSatisfy { ["200", "201"].contains($0) }, "\(flagged.all)")
        let queue = try c.call(0, "GET", "/v1/review-queue", as: "mod")
        let items = try #require(queue.json?["items"] as? [[String: Any]])
        #expect(items.count == 1 && items.first?["flag_count"] as? Int == 1, "\(queue.text)")
    }

    @Test func anInstanceKilledMidLoadLosesNothingItAcknowledged() async throws {
        let c = try Cluster(count: 2)
        let acknowledged = LockedIDs()
        let victim = c[0]
        let token = c.tokens["alice"]!
        let workers = BlockingWorkers(count: 4) { worker in
            // One kept-alive connection a worker, to the instance that is killed.
            guard let client = try? victim.client() else { return }
            for index in 0..<400 {
                let id = "w\(worker)-\(index)"
                guard let response = try? client.request(
                    "POST", "/v1/channels/messaging:general/messages",
                    headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                    body: #"{"id":"\#(id)","text":"load \#(id)"}"#) else { return }
                if response.status == 201 { acknowledged.add(id) }
            }
        }
        #expect(try await waitUntil(.seconds(20)) { acknowledged.count >= 100 })
        kill(victim.process.processIdentifier, SIGKILL)
        await workers.join()
        #expect(acknowledged.count < 1600, "the instance was killed while sends were under way")
        #expect(acknowledged.count >= 100)
        // Every acknowledged message is there, read through the instance that lives on.
        for id in acknowledged.all {
            let response = try c.call(1, "GET", "/v1/messages/\(id)", as: "mod")
            #expect(response.status == 200, "\(id) was acknowledged but is gone")
        }
    }
}

struct NotFollowed: Error, CustomStringConvertible {
    var description: String
}

final class LockedIDs: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: [String] = []
    func add(_ id: String) { lock.withLock { ids.append(id) } }
    var count: Int { lock.withLock { ids.count } }
    var all: [String] { lock.withLock { ids } }
}
