import BouncerStore
import Foundation
import Locking
import Synchronization
import Testing
import TestSupport

@Suite(.disabled(if: TestStore.isPostgres, "the backup command and route copy the SQLite file; PostgreSQL's is pg_dump's"))
struct BackupTests {
    @Test func aBackupTakenDuringWritesRestores() async throws {
        let h = try await blocking { try MessagesTests.Harness() }
        let port = h.service.port
        let token = h.tokens["alice"]!
        let acknowledged = Locked<[String]>([])
        let stop = Atomic<Bool>(false)
        let writers = (0..<4).map { writer in
            Thread {
                guard let client = try? RawHTTPClient(port: port) else { return }
                var index = 0
                while !stop.load(ordering: .relaxed) {
                    let id = "w\(writer)-\(index)"
                    guard let response = try? client.request(
                        "POST", "/v1/channels/messaging:general/messages",
                        headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                        body: #"{"id":"\#(id)","text":"message \#(index)"}"#) else { return }
                    if response.status == 201 { acknowledged.withLock { $0.append(id) } }
                    index += 1
                }
            }
        }
        writers.forEach { $0.start() }
        // Writes under way (on a busy machine the first ones can take longer than a fixed pause).
        #expect(try await waitUntil(.seconds(10)) { acknowledged.withLock { $0.count } >= 20 })
        let before = Set(acknowledged.withLock { $0 })
        let (response, cli) = try await blocking { () -> (RawResponse, (status: Int32, output: String)) in
            let response = try h.call("POST", "/v1/admin/backup", as: "root")
            let cli = try ServiceProcess.run(["backup", h.directory.path("copy.sqlite3"), "--data-dir", h.directory.path("data")])
            return (response, cli)
        }
        stop.store(true, ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(200))
        #expect(response.status == 201)
        #expect(cli.status == 0, "\(cli.output)")
        #expect(!before.isEmpty)
        let path = try #require(response.json?["path"] as? String)
        #expect(path.hasPrefix(h.directory.path("data/backups/")))

        for copy in [path, h.directory.path("copy.sqlite3")] {
            let database = try Database(path: copy, mode: .readOnly)
            #expect(try database.fetchValue("PRAGMA integrity_check", as: String.self) == "ok")
            let ids = Set(try database.fetchAll("SELECT id FROM messages").compactMap { $0.get("id", as: String.self) })
            #expect(before.isSubset(of: ids), "every message acknowledged before the backup is in it")
            let all = Set(acknowledged.withLock { $0 })
            #expect(ids.isSubset(of: all), "and nothing that was never acknowledged")
        }
        #expect(try ServiceProcess.run(["backup", h.directory.path("copy.sqlite3"), "--data-dir", h.directory.path("data")]).status == 1,
                "an existing file is not overwritten")

        // Restore: the copy as the store of a new data directory.
        let restored = h.directory.path("restored")
        try FileManager.default.createDirectory(atPath: restored, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path, toPath: restored + "/bouncer.sqlite3")
        try FileManager.default.copyItem(atPath: h.directory.path("data/jwt-secret"), toPath: restored + "/jwt-secret")
        try await blocking {
            let service = try ServiceProcess(arguments: ["--data-dir", restored])
            let id = try #require(before.first)
            let found = try service.client().request("GET", "/v1/messages/\(id)", headers: ["Authorization": "Bearer \(token)"])
            #expect(found.status == 200)
            let audit = try h.call("GET", "/v1/audit?action=store.backup", as: "mod").json?["entries"] as? [Any]
            #expect(audit?.count == 1)
        }
    }
}
