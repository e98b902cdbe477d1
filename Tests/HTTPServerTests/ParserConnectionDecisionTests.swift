import Testing
@testable import HTTPServer

/// A request head and one decision the parser must make about it.
struct DecisionCase: Sendable, CustomTestStringConvertible {
    var name: String
    var raw: String
    var expected: Bool

    init(_ name: String, _ raw: String, _ expected: Bool) {
        self.name = name
        self.raw = raw
        self.expected = expected
    }

    var testDescription: String { "\(name) -> \(expected)" }
}

let keepAliveCases: [DecisionCase] = [
    .init("HTTP/1.1 by default", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", true),
    .init("HTTP/1.1 with Connection: close", "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", false),
    .init("HTTP/1.1 with Connection: Close (case)", "GET / HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n", false),
    .init("HTTP/1.1 with close in a list", "GET / HTTP/1.1\r\nHost: x\r\nConnection: upgrade, close\r\n\r\n", false),
    .init("HTTP/1.1 with Connection: keep-alive", "GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n", true),
    .init("HTTP/1.0 by default", "GET / HTTP/1.0\r\n\r\n", false),
    .init("HTTP/1.0 with Connection: keep-alive", "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
    .init("HTTP/1.0 with Connection: Keep-Alive (case)", "GET / HTTP/1.0\r\nHost: x\r\nConnection: Keep-Alive\r\n\r\n", true),
    .init("HTTP/1.0 with Connection: close", "GET / HTTP/1.0\r\nConnection: close\r\n\r\n", false),
]

let expectContinueCases: [DecisionCase] = [
    .init("HTTP/1.1 with a Content-Length body", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n", true),
    .init("HTTP/1.1 chunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n", true),
    .init("HTTP/1.1, 100-Continue in other case", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-Continue\r\n\r\n", true),
    .init("HTTP/1.1 without a body", "GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n", false),
    .init("HTTP/1.1 with Content-Length: 0", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nExpect: 100-continue\r\n\r\n", false),
    .init("HTTP/1.0 with a body", "POST / HTTP/1.0\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n", false),
    .init("HTTP/1.1 with a body, no Expect", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n", false),
]

@Suite("Parser: keep-alive and 100-continue decisions")
struct ParserConnectionDecisionTests {
    @Test("keep-alive", arguments: keepAliveCases)
    func keepAlive(_ decision: DecisionCase) throws {
        let head = try #require(parseHead(decision.raw))
        #expect(head.keepAlive == decision.expected)
    }

    @Test("expectsContinue", arguments: expectContinueCases)
    func expectsContinue(_ decision: DecisionCase) throws {
        // Only the head is fed: the decision must not wait for the body.
        var parser = HTTPRequestParser()
        parser.feed(Array(decision.raw.utf8))
        let event = try parser.next()
        guard case .head(let head)? = event else {
            Issue.record("expected a head, got \(String(describing: event))")
            return
        }
        #expect(head.expectsContinue == decision.expected)
    }
}
