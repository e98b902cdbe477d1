import Foundation
import Testing
import TestSupport

@Suite(.oneInstance) struct DescriptorExhaustionTests {
    /// With far fewer file descriptors than clients, the server neither crashes nor stops: the
    /// clients it cannot take wait in the backlog, and it serves again once descriptors free up.
    @Test func runningOutOfDescriptorsIsSurvived() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let data = directory.path("data")
            let admin = try TestTokens.mint("root", role: "admin", dataDirectory: data)
            let service = try ServiceProcess(arguments: ["--data-dir", data], openFileLimit: 48)
            // Connected before the crowd: a client already being served.
            let served = try service.client()
            #expect(try served.request("GET", "/v1/me", headers: ["Authorization": "Bearer \(admin)"]).status == 200)
            var crowd: [RawHTTPClient] = []
            for _ in 0..<120 {
                crowd.append(try service.client())
            }
            #expect(service.waitForOutput(containing: "out of file descriptors", timeout: .seconds(20)), "the crowd met the limit")
            #expect(service.isRunning)
            // Connections leave descriptors for the rest of the process: work that opens files
            // (a backup opens the store's copy) still succeeds while the crowd waits. Without
            // them, anything that opened a file failed, and libdispatch, which opens /proc for its
            // workers once a second, ended the process.
            // (On PostgreSQL a backup is pg_dump, a program of its own started under the same
            // limit of 48, beside the descriptors it is handed: not what this checks.)
            if !TestStore.isPostgres {
                let backup = try served.request("POST", "/v1/admin/backup", headers: ["Authorization": "Bearer \(admin)"])
                #expect(backup.status == 201, "\(backup.text)")
            }
            #expect(service.isRunning)
            crowd.removeAll()
            // Accepting resumes after its pause; the first new client may still queue behind the
            // closed crowd for a moment.
            var status: Int?
            let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(20))
            while status != 200 && ContinuousClock.now < deadline {
                status = try? service.client().request("GET", "/healthz").status
                if status != 200 { Thread.sleep(forTimeInterval: 0.1) }
            }
            #expect(status == 200, "a new client is served once the crowd is gone")
            #expect(service.isRunning)
        }
    }
}
