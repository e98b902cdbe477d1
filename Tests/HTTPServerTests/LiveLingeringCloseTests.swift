import Testing
import TestSupport
@testable import HTTPServer

/// A connection the server ends after a response is not closed with the peer's input unread: it
/// shuts its sending side, reads and drops what still comes, and closes when the peer does or the
/// linger timeout passes (RFC 9112, section 9.6).
@Suite("Live server: lingering close")
struct LiveLingeringCloseTests {
    /// A body four times the limit: more than the socket buffers hold while the server reads none
    /// of it, so a client still sending it when the server closes outright meets a reset.
    static let refusedBodyBytes = 4 * ServerLimits().maxBodyBytes

    @Test("a client that sends all of a refused body before reading gets its 413, not a reset")
    func refusedBodySentWhole() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            let head = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(Self.refusedBodyBytes)\r\n\r\n"
            // As a client that reads only once its request is out (Python's http.client, say).
            try await client.send(Array(head.utf8) + [UInt8](repeating: 0x61, count: Self.refusedBodyBytes), timeout: .seconds(20))
            let response = try await client.readResponse(timeout: .seconds(5))
            expectProblem(response, status: 413, code: "body_too_large")
            #expect(response.header("Connection") == "close")
            #expect(await client.closesWithin(.seconds(2)), "the server's side is shut once the answer is out")
        }
    }

    @Test("a lingering connection closes when its peer does, and otherwise at the linger timeout")
    func lingerEnds() async throws {
        var limits = ServerLimits.defaultsForTests
        limits.lingerTimeout = .seconds(60)
        try await withLiveServer(limits: limits) { server, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("GET", "/hello", headers: ["Connection: close"]))
            #expect(try await client.readResponse().text == "hello")
            #expect(await client.closesWithin(.seconds(2)))
            #expect(server.openConnections == 1, "the server reads on until the client closes")
            client.close()
            #expect(try await waitUntil { server.openConnections == 0 }, "closed with the client, not at the timeout")
        }
        limits.lingerTimeout = .milliseconds(300)
        try await withLiveServer(limits: limits) { server, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("GET", "/hello", headers: ["Connection: close"]))
            #expect(try await client.readResponse().text == "hello")
            #expect(try await waitUntil { server.openConnections == 0 }, "closed at the timeout while the client stays")
            withExtendedLifetime(client) {}
        }
    }
}
