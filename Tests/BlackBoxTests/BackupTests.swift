import BouncerSQLite
import BouncerStore
import Foundation
import Locking
import Testing
import TestSupport

@Suite struct BackupTests {
    /// Four writers sending new messages until `stop`, keeping the ids acknowledged.
    static func writeUntilStopped(port: Int, token: String) -> (acknowledged: Locked<[String]>, stop: Locked<Bool>, writers: BlockingWorkers) {
        let acknowledged = Locked<[String]>([])
        let stop = Locked(false)
        let writers = BlockingWorkers(count: 4) { writer in
            guard let client = try? RawHTTPClient(port: port) else { return }
            var index = 0
            while !stop.withLock({ $0 }) {
                let id = "w\(writer)-\(index)"
                guard let response = try? client.request(
                    "POST", "/v1/channels/messaging:general/messages",
                    headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                    body: #"{"id":"\#(id)","text":"message \#(index)"}"#) else { return }
                if response.status == 201 { acknowledged.withLock { $0.append(id) } }
                index += 1
            }
        }
        return (acknowledged, stop, writers)
    }

    /// A service under four writers, backed up through the API and the command (to `copy` in the
    /// test's directory) while they write.
    struct BackupRun {
        let h: BlackBoxHarness
        /// Acknowledged before the backups began, and at all.
        let before: Set<String>
        let all: Set<String>
        let response: RawResponse
        let cli: (status: Int32, output: String)
    }

    static func backUpDuringWrites(copy: String) async throws -> BackupRun {
        let h = try await blocking { try BlackBoxHarness() }
        let (acknowledged, stop, writers) = writeUntilStopped(port: h.service.port, token: h.tokens["alice"]!)
        // Writes under way (on a busy machine the first ones can take longer than a fixed pause).
        #expect(try await waitUntil(.seconds(10)) { acknowledged.withLock { $0.count } >= 20 })
        let before = Set(acknowledged.withLock { $0 })
        let (response, cli) = try await blocking { () -> (RawResponse, (status: Int32, output: String)) in
            (try h.call("POST", "/v1/admin/backup", as: "root"),
             try ServiceProcess.run(["backup", h.directory.path(copy), "--data-dir", h.directory.path("data")]))
        }
        stop.withLock { $0 = true }
        await writers.join()
        #expect(!before.isEmpty)
        return BackupRun(h: h, before: before, all: Set(acknowledged.withLock { $0 }), response: response, cli: cli)
    }

    @Test(.disabled(if: TestStore.isPostgres, "SQLite's copy; PostgreSQL's dump is the next test"))
    func aBackupTakenDuringWritesRestores() async throws {
        let run = try await Self.backUpDuringWrites(copy: "copy.sqlite3")
        let (h, before, response, cli) = (run.h, run.before, run.response, run.cli)
        let token = h.tokens["alice"]!
        #expect(response.status == 201)
        #expect(cli.status == 0, "\(cli.output)")
        let path = try #require(response.json?["path"] as? String)
        #expect(path.hasPrefix(h.directory.path("data/backups/")))

        for copy in [path, h.directory.path("copy.sqlite3")] {
            let database = try SQLiteDatabase(path: copy, mode: .readOnly)
            #expect(try database.fetchValue("PRAGMA integrity_check", as: String.self) == "ok")
            let ids = Set(try database.fetchAll("SELECT id FROM messages").compactMap { try $0.decodeIfPresent("id", as: String.self) })
            #expect(before.isSubset(of: ids), "every message acknowledged before the backup is in it")
            #expect(ids.isSubset(of: run.all), "and nothing that was never acknowledged")
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

    /// On PostgreSQL the route and the command write `pg_dump`'s custom format, and
    /// `pg_restore` into an empty database gives back what was acknowledged before.
    @Test(.postgresOnly)
    func aDumpTakenDuringWritesRestores() async throws {
        let run = try await Self.backUpDuringWrites(copy: "copy.dump")
        let (h, before, response, cli) = (run.h, run.before, run.response, run.cli)
        #expect(response.status == 201, "\(response.text)")
        #expect(cli.status == 0, "\(cli.output)")
        let path = try #require(response.json?["path"] as? String)
        #expect(path.hasPrefix(h.directory.path("data/backups/")) && path.hasSuffix(".dump"))
        for copy in [path, h.directory.path("copy.dump")] {
            let restored = try PostgresTestDatabase()
            try PostgresTestDatabase.restore(copy, into: restored.url)
            let ids = Set(try PostgresTestDatabase.psql(restored.url, "SELECT id FROM messages").split(separator: "\n").map(String.init))
            #expect(before.isSubset(of: ids), "every message acknowledged before the dump is in it")
            #expect(ids.isSubset(of: run.all), "and nothing that was never acknowledged")
        }
        #expect(try ServiceProcess.run(["backup", h.directory.path("copy.dump"), "--data-dir", h.directory.path("data")]).status == 1,
                "an existing file is not overwritten")
    }
}
