import Foundation
import Testing
import TestSupport
@testable import HTTPServer

/// A body trickled a byte at a time, each byte in time for the idle timeout, once held its
/// connection for as long as the body was long. Past a grace period, a body must average a minimum
/// rate, or the client gets 408 and a close.
@Suite("Live server: minimum body rate")
struct LiveBodyRateTests {
    static var limits: ServerLimits {
        var limits = ServerLimits.defaultsForTests
        limits.bodyRateGrace = TestTiming.scaled(.milliseconds(600))
        limits.bodyMinimumRate = 200
        return limits
    }

    @Test("a body trickled a byte every 100 ms is cut off after the grace with 408 and a close")
    func trickledBodyIsCutOff() async throws {
        try await withLiveServer(limits: Self.limits) { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
            let started = ContinuousClock.now
            var sent = 0
            // Each byte comes well inside the idle timeout (10 s): only the rate can end this. The
            // server answers after the grace; bytes sent after that go nowhere, or fail.
            while ContinuousClock.now - started < TestTiming.scaled(.milliseconds(1500)) {
                guard (try? await client.send("a")) != nil else { break }
                sent += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            let response = try await client.readResponse(timeout: TestTiming.scaled(.seconds(3)))
            expectProblem(response, status: 408, code: "body_too_slow")
            #expect(response.header("Connection") == "close")
            #expect(await client.closesWithin(.seconds(1)))
            #expect(ContinuousClock.now - started < TestTiming.scaled(.seconds(3)), "cut off soon after the grace")
        }
    }

    @Test("a body sent at speed after a pause within the grace is taken")
    func aBodyAtSpeedIsTaken() async throws {
        try await withLiveServer(limits: Self.limits) { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            let body = String(repeating: "b", count: 50_000)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            try await Task.sleep(for: .milliseconds(300))
            try await client.send(body)
            let response = try await client.readResponse(timeout: TestTiming.scaled(.seconds(3)))
            #expect(response.status == 200)
            #expect(response.text == body)
        }
    }
}
