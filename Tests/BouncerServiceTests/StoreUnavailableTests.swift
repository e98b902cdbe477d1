import BouncerIdentity
import CFaultVFS
import CSQLite
import Foundation
import Testing
import TestSupport
@testable import BouncerApplication
@testable import BouncerService
@testable import BouncerSQLite
@testable import BouncerStore

/// The whole service over a store whose disk fills up: a fault-injecting VFS under the writer
/// fails every write to the log with SQLITE_FULL, as ENOSPC would.
@Suite(.serialized) struct StoreUnavailableTests {
    @Test func aFullDiskIsA503WithRetryAfterLoggedOnceASecondAndShownByReadyz() async throws {
        #expect(fault_vfs_register("bouncer-fault") == SQLITE_OK)
        let directory = try TemporaryDirectory()
        var configuration = ServiceConfiguration()
        configuration.dataDirectory = directory.path("data")
        configuration.port = 0
        configuration.jwtSecret = "a test secret of enough length for HS256 tokens"
        configuration.sendRatePerUser = 0
        configuration.migrationsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("migrations").path
        configuration.store.writerBaseVFS = "bouncer-fault"
        configuration.shutdownGracePeriod = .milliseconds(200)  // the test client stays connected
        let logPath = directory.path("log.jsonl")
        try #require(FileManager.default.createFile(atPath: logPath, contents: nil))
        let logFile = open(logPath, O_WRONLY | O_APPEND)
        defer { close(logFile) }
        let application = try await buildApplication(configuration, logger: Logger(level: .info, output: logFile))
        let port = try application.start()
        let token = TokenSigner(secret: Array(configuration.jwtSecret!.utf8)).token(for: Identity(userID: "alice", role: .user))
        let client = try await RawHTTPClient.connect(port: port)
        let headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        func send(_ text: String) async throws -> RawResponse {
            try await client.request("POST", "/v1/channels/messaging:general/messages", headers: headers, body: #"{"text":"\#(text)"}"#)
        }
        #expect(try await send("before").status == 201)
        #expect(try await client.request("GET", "/readyz").status == 200)

        fault_vfs_arm(directory.resolvedPath, Int32(FAULT_LOG), Int32(FAULT_WRITE), SQLITE_FULL, 0, -1, 0, 0)
        let faultStarted = ContinuousClock.now
        var refused = 0
        for index in 0..<30 {
            let response = try await send("during \(index)")
            #expect(response.status == 503, "\(response.status)")
            #expect(response.json?["code"] as? String == "store_unavailable")
            #expect(response.header("retry-after") == "1")
            if response.status == 503 { refused += 1 }
        }
        let ready = try await client.request("GET", "/readyz")
        #expect(ready.status == 503 && ready.json?["code"] as? String == "store_unavailable")
        let metrics = String(decoding: try await client.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("bouncer_store_unavailable_total \(refused)"))

        fault_vfs_disarm(directory.resolvedPath)
        let faultSeconds = Int((ContinuousClock.now - faultStarted) / .seconds(1))
        #expect(try await send("after").status == 201)
        #expect(try await client.request("GET", "/readyz").status == 200)
        await application.shutdown()

        let lines = (try String(contentsOfFile: logPath, encoding: .utf8)).split(separator: "\n")
        let refusalLines = lines.filter { $0.contains("store unavailable") }
        // (Thirty refusals: a slow build, under a sanitizer, takes several seconds over them.)
        #expect(!refusalLines.isEmpty && refusalLines.count <= min(faultSeconds + 2, 29),
                "one line a second, not one a request: \(refusalLines.count) in \(faultSeconds) s")
        #expect(!lines.contains { $0.contains("request failed") }, "no request logged as a failure of its own")
        // Nothing refused was kept; everything acknowledged was.
        let database = try SQLiteDatabase(path: configuration.storePath, mode: .readOnly)
        let texts = try database.fetchAll("SELECT text FROM messages").compactMap { try $0.decodeIfPresent("text", as: String.self) }
        #expect(Set(texts) == ["before", "after"])
    }
}
