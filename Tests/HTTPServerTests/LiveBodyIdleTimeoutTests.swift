import Foundation
import Testing
import TestSupport
@testable import HTTPServer

/// `bodyIdleTimeout` is "time allowed between two reads of a request body", and the header
/// timeout covers only the time to the end of the header section. So once a head is complete, a
/// client that stalls its body must be cut off after `bodyIdleTimeout`, however its bytes were
/// split into reads. Here the header timeout is left at its 10 s default and the body timeout
/// is 300 ms: a 408 within 2 s can only come from the body timeout.
@Suite("Live server: body idle timeout")
struct LiveBodyIdleTimeoutTests {
    static var limits: ServerLimits {
        var limits = ServerLimits()
        limits.bodyIdleTimeout = .milliseconds(300)
        return limits
    }

    static let head = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n"

    static func expectTimedOut(_ client: RawHTTPClient, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let response = try await client.readResponse(timeout: .seconds(2))
        expectProblem(response, status: 408, code: "request_timeout", sourceLocation: sourceLocation)
        #expect(response.header("Connection") == "close", sourceLocation: sourceLocation)
        #expect(await client.closesWithin(.seconds(1)), sourceLocation: sourceLocation)
    }

    @Test("head, then part of the body in a later read, then a stall: 408")
    func stallAfterSeparateBodyRead() async throws {
        try await withLiveServer(limits: Self.limits) { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(Self.head)
            try await Task.sleep(for: .milliseconds(50))
            try await client.send("abc")
            try await Self.expectTimedOut(client)
        }
    }

    @Test("head and part of the body in the same read, then a stall: 408")
    func stallAfterHeadAndBodyInOneRead() async throws {
        try await withLiveServer(limits: Self.limits) { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(Self.head + "abc")
            try await Self.expectTimedOut(client)
        }
    }

    @Test("a complete head and then no body byte at all: 408")
    func stallBeforeFirstBodyByte() async throws {
        try await withLiveServer(limits: Self.limits) { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(Self.head)
            try await Self.expectTimedOut(client)
        }
    }

    @Test("a body that keeps arriving within the idle timeout is not cut off")
    func steadyBody() async throws {
        // Pieces every 100 ms for 1 s against a 500 ms idle timeout: the whole body takes longer
        // than the timeout, so it passes only if each piece read extends it (the timing itself is
        // ConnectionStateMachineTests'). The client runs on a thread of its own, so tests busy on
        // the shared pool cannot make it late.
        var limits = ServerLimits()
        limits.bodyIdleTimeout = .milliseconds(500)
        try await withLiveServer(limits: limits) { _, port in
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                try client.send(Self.head)
                for piece in ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"] {
                    Thread.sleep(forTimeInterval: 0.1)
                    try client.send(piece)
                }
                return try client.readResponse(timeout: .seconds(10))
            }
            #expect(response.status == 200)
            #expect(response.text == "0123456789")
        }
    }
}
