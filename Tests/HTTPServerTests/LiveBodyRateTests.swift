import Foundation
import Testing
import TestSupport
@testable import HTTPServer

/// A body trickled a byte at a time, each byte in time for the idle timeout, once held its
/// connection for as long as the body was long. Past a grace period, a body must average a minimum
/// rate, or the client gets 408 and a close. The idle timeout is 10 s (scaled) throughout: an
/// answer before it can only come from the rate.
@Suite("Live server: minimum body rate")
struct LiveBodyRateTests {
    /// A minimum of 200 bytes a second after `grace`.
    static func limits(grace: Duration) -> ServerLimits {
        var limits = ServerLimits.defaultsForTests
        limits.bodyRateGrace = TestTiming.scaled(grace)
        limits.bodyMinimumRate = 200
        return limits
    }

    @Test("a body trickled a byte every 100 ms is cut off after the grace with 408 and a close")
    func trickledBodyIsCutOff() async throws {
        try await withLiveServer(limits: Self.limits(grace: .seconds(1))) { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
            let started = ContinuousClock.now
            // Each byte comes well inside the idle timeout: only the rate can end this. The server
            // answers when the grace ends; bytes sent after that go nowhere, or fail.
            while ContinuousClock.now - started < TestTiming.scaled(.milliseconds(1500)) {
                guard (try? await client.send("a")) != nil else { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            // However late this client gets to read (a busy test run can hold its task back for
            // seconds), the answer waits for it; one only at the idle timeout would not come.
            let response = try await client.readResponse(timeout: TestTiming.scaled(.seconds(6)))
            expectProblem(response, status: 408, code: "body_too_slow")
            #expect(response.header("Connection") == "close")
            #expect(await client.closesWithin(.seconds(1)))
        }
    }

    @Test("a head and then no byte at all is answered 408 body_too_slow when the grace ends, not at the idle timeout")
    func aStalledBodyIsCutOffWhenTheGraceEnds() async throws {
        try await withLiveServer(limits: Self.limits(grace: .seconds(1))) { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
            let response = try await client.readResponse(timeout: TestTiming.scaled(.seconds(7)))
            expectProblem(response, status: 408, code: "body_too_slow")
            #expect(await client.closesWithin(.seconds(1)))
        }
    }

    @Test("a body sent at speed after a pause within the grace is taken")
    func aBodyAtSpeedIsTaken() async throws {
        // A long grace against a short pause: this client's task can be held back on a busy run,
        // and the body must still come within the grace.
        try await withLiveServer(limits: Self.limits(grace: .seconds(8))) { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            let body = String(repeating: "b", count: 50_000)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            try await Task.sleep(for: .milliseconds(100))
            try await client.send(body)
            let response = try await client.readResponse(timeout: TestTiming.scaled(.seconds(3)))
            #expect(response.status == 200)
            #expect(response.text == body)
        }
    }
}
