import Foundation
import Testing
import TestSupport

/// PostgreSQL stopped under load and started again: while it is down, sends fail fast with 503
/// `store_unavailable` and `/readyz` says 503; once it is back the service recovers by itself;
/// nothing it acknowledged is lost. The database is a cluster of the test's own, as the outage
/// would disturb every other test on a shared one.
@Suite(.postgresOnly, .oneInstance, .alone)
struct DatabaseOutageTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/postgres-cluster.sh").path

    static func cluster(_ arguments: [String]) throws -> [String] {
        // Not through Foundation's Process: the server the script starts outlives it.
        let directory = try TemporaryDirectory()
        let outputPath = directory.path("output")
        let status = try runToEnd("/bin/bash", [script] + arguments, outputPath: outputPath)
        let text = String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self)
        guard status == 0 else {
            throw PostgresTestDatabase.Unavailable(description: "postgres-cluster.sh \(arguments) failed: \(text)")
        }
        return text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var acknowledged: [String] = []
        private var refusals: [(status: Int, code: String?, seconds: Double)] = []
        func acknowledge(_ id: String) { lock.withLock { acknowledged.append(id) } }
        func refuse(_ status: Int, _ code: String?, _ seconds: Double) { lock.withLock { refusals.append((status, code, seconds)) } }
        var acknowledgedIDs: [String] { lock.withLock { acknowledged } }
        var refused: [(status: Int, code: String?, seconds: Double)] { lock.withLock { refusals } }
    }

    @Test func theDatabaseRestartedUnderLoad() async throws {
        let started = try Self.cluster(["start"])
        let clusterDirectory = try #require(started.first { $0.hasPrefix("/") })
        let url = try #require(started.first { $0.hasPrefix("postgres://") })
        defer { _ = try? Self.cluster(["stop", clusterDirectory]) }
        let directory = try TemporaryDirectory()
        let data = directory.path("data")
        let token = try TestTokens.mint("alice", dataDirectory: data)
        let service = try ServiceProcess(arguments: ["--data-dir", data, "--database-url", url, "--send-rate-per-user", "0"], instances: 1)
        let outcomes = Outcomes()
        let running = LockedFlag()

        // Each worker keeps its connection (a new one only after a failure): thousands of
        // connections a second, each left in TIME_WAIT, would crowd the host's ports for every
        // other test.
        @Sendable func send(_ id: String, on connection: inout RawHTTPClient?) {
            let began = ContinuousClock.now
            do {
                let client = try connection ?? service.client()
                connection = client
                let response = try client.request("POST", "/v1/channels/messaging:load/messages",
                                                  headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                                                  body: #"{"id":"\#(id)","text":"load \#(id)"}"#, timeout: .seconds(10))
                if response.status == 201 {
                    outcomes.acknowledge(id)
                } else {
                    outcomes.refuse(response.status, response.json?["code"] as? String, (ContinuousClock.now - began) / .seconds(1))
                    // A refused client waits a moment before trying again, as a real one would.
                    Thread.sleep(forTimeInterval: 0.005)
                }
            } catch {
                connection = nil
                Thread.sleep(forTimeInterval: 0.005)
                outcomes.refuse(0, String(describing: error), (ContinuousClock.now - began) / .seconds(1))
            }
        }
        func readiness() throws -> Int {
            let client = try service.client()
            defer { client.close() }
            return try client.request("GET", "/readyz").status
        }

        let workers = BlockingWorkers(count: 4) { worker in
            var index = 0
            var connection: RawHTTPClient?
            while running.value {
                send("w\(worker)-\(index)", on: &connection)
                index += 1
            }
        }
        do {
            defer { running.set(false) }
            #expect(try await waitUntil(.seconds(10)) { outcomes.acknowledgedIDs.count >= 200 })
            _ = try Self.cluster(["down", clusterDirectory])
            let downAt = outcomes.refused.count
            #expect(try await waitUntil(.seconds(20)) { outcomes.refused.count - downAt >= 20 },
                    "sends went on being answered while the database was down")
            #expect(try readiness() == 503, "not ready while the database is down")
            let whileDown = outcomes.refused.dropFirst(downAt)
            #expect(whileDown.allSatisfy { $0.status == 503 && $0.code == "store_unavailable" }, "\(Array(whileDown.prefix(5)))")
            #expect(whileDown.allSatisfy { $0.seconds < 1 }, "each refusal came fast")
            let acknowledgedBefore = outcomes.acknowledgedIDs.count
            _ = try Self.cluster(["up", clusterDirectory])
            #expect(try await waitUntil(.seconds(10)) { outcomes.acknowledgedIDs.count > acknowledgedBefore + 100 },
                    "sends succeed again once the database is back")
            // Ready once a write commits after the last refusal: a send still in flight when the
            // database came back can be refused after the first commits.
            #expect(try await waitUntil(.seconds(10)) { (try? readiness()) == 200 }, "ready again once writes commit")
        }
        await workers.join()
        // Every acknowledged message is stored.
        let ids = outcomes.acknowledgedIDs
        let stored = Set(try PostgresTestDatabase.psql(url, "SELECT id FROM messages").split(separator: "\n").map(String.init))
        #expect(ids.filter { !stored.contains($0) }.isEmpty, "acknowledged but lost")
    }
    /// A Matrix homeserver's message while the store cannot take it: refused (503, in Matrix's
    /// shape: the homeserver fails closed), or allowed with `--matrix-fail-open`.
    @Test func matrixMessagesFailClosedOrOpenWhileTheDatabaseIsDown() async throws {
        let started = try Self.cluster(["start"])
        let clusterDirectory = try #require(started.first { $0.hasPrefix("/") })
        let url = try #require(started.first { $0.hasPrefix("postgres://") })
        defer { _ = try? Self.cluster(["stop", clusterDirectory]) }
        let directory = try TemporaryDirectory()
        let common = ["--database-url", url, "--send-rate-per-user", "0", "--matrix-secret", "s"]
        let closed = try ServiceProcess(arguments: ["--data-dir", directory.path("closed")] + common, instances: 1)
        let open = try ServiceProcess(arguments: ["--data-dir", directory.path("open"), "--matrix-fail-open"] + common, instances: 1)
        @Sendable func event(_ service: ServiceProcess, _ id: String) throws -> RawResponse {
            let body = #"{"event":{"type":"m.room.message","room_id":"!r:hs","sender":"@a:hs","event_id":"$\#(id)","content":{"body":"hello"}}}"#
            return try service.client().request("POST", "/v1/integrations/matrix/check_event_for_spam",
                                                headers: ["Authorization": "Bearer s", "Content-Type": "application/json"], body: body,
                                                timeout: .seconds(30))
        }
        #expect(try await blocking { try event(closed, "up-1").status } == 200)
        _ = try Self.cluster(["down", clusterDirectory])
        // A clean message may be allowed before its copy is committed, until a write has failed:
        // from then on each waits for its commit, and is refused.
        let refused = try await blocking { () -> RawResponse? in
            for index in 0..<20 {
                let response = try event(closed, "down-\(index)")
                if response.status != 200 { return response }
            }
            return nil
        }
        #expect(refused?.status == 503, "\(refused?.text ?? "every message allowed")")
        #expect(refused?.json?["errcode"] as? String == "M_UNKNOWN")
        let fields: Set<String> = Set(refused?.json?.keys.map { String($0) } ?? [])
        #expect(fields.isSubset(of: ["errcode", "error", "retry_after_ms"]), "\(refused?.text ?? "")")
        let openAnswers = try await blocking { try (0..<5).map { try event(open, "open-\($0)").status } }
        #expect(openAnswers == [200, 200, 200, 200, 200], "fail open: allowed unmoderated")
        _ = try Self.cluster(["up", clusterDirectory])
    }
}

final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = true
    var value: Bool { lock.withLock { flag } }
    func set(_ value: Bool) { lock.withLock { flag = value } }

}
