import Foundation
import Locking
import Synchronization
import Testing
import TestSupport

@Suite(.oneInstance) struct ShutdownTests {
    /// SIGTERM while clients send: every answered request is a 200 (none cut off with a 5xx),
    /// idle keep-alive connections are closed, and the process exits 0 well within 10 s.
    @Test(arguments: [SIGTERM, SIGINT])
    func terminationUnderLoadIsClean(signal: Int32) async throws {
        let directory = try TemporaryDirectory()
        let service = try await blocking { try ServiceProcess(arguments: ["--data-dir", directory.path("data")]) }
        let idle = try (0..<3).map { _ in try service.client() }
        for client in idle {
            let status = try await blocking { try client.request("GET", "/healthz").status }
            #expect(status == 200)
        }

        let statuses = Locked<[Int]>([])
        let stop = Atomic<Bool>(false)
        let port = service.port
        let senders = (0..<8).map { _ in
            Thread {
                guard let client = try? RawHTTPClient(port: port) else { return }
                while !stop.load(ordering: .relaxed) {
                    guard let response = try? client.request("GET", "/readyz") else { return }
                    statuses.withLock { $0.append(response.status) }
                    if response.header("Connection") == "close" { return }
                }
            }
        }
        senders.forEach { $0.start() }
        #expect(try await waitUntil(.seconds(20)) { statuses.withLock { $0.count } >= 8 }, "the senders were answered before the signal")
        let started = ContinuousClock.now
        service.signal(signal)
        let status = try await blocking { service.waitForExit(timeout: .seconds(10)) }
        let elapsed = ContinuousClock.now - started
        stop.store(true, ordering: .relaxed)
        #expect(status == 0)
        #expect(elapsed < .seconds(10))
        let seen = statuses.withLock { $0 }
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0 == 200 }, "statuses other than 200: \(Set(seen))")
        for client in idle {
            let closed = try await blocking { client.closesWithin(.seconds(1)) }
            #expect(closed)
        }
        let stopped = try await blocking { service.waitForOutput(containing: "\"msg\":\"stopped\"") }
        #expect(stopped, "the last lines: \(service.lines.suffix(3))")
    }
}
