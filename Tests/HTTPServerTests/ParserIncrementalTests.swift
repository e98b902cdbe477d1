import Testing
@testable import HTTPServer

/// A valid request and exactly what the parser must make of it.
struct ValidRequestCase: Sendable, CustomTestStringConvertible {
    var name: String
    var raw: String
    var head: RequestHead
    var body: String

    var testDescription: String { name }

    var bytes: [UInt8] { Array(raw.utf8) }

    /// head, the body if there is one, end.
    var expectedEvents: [NormalizedEvent] {
        body.isEmpty ? [.head(head), .end] : [.head(head), .body(Array(body.utf8)), .end]
    }
}

let validRequests: [ValidRequestCase] = [
    ValidRequestCase(
        name: "GET without a body",
        raw: "GET /hello?name=world HTTP/1.1\r\nHost: example.com\r\nUser-Agent: raw-test\r\nAccept: */*\r\n\r\n",
        head: RequestHead(method: "GET", target: "/hello?name=world", version: .http1_1,
                          headers: ["host": "example.com", "user-agent": "raw-test", "accept": "*/*"],
                          framing: .none, keepAlive: true, expectsContinue: false),
        body: ""),
    ValidRequestCase(
        name: "POST with a Content-Length body",
        raw: "POST /echo HTTP/1.1\r\nHost: example.com\r\nContent-Type: text/plain\r\nContent-Length: 26\r\n\r\nhello\r\nworld\r\n0\r\n\r\nGET / X",
        head: RequestHead(method: "POST", target: "/echo", version: .http1_1,
                          headers: ["host": "example.com", "content-type": "text/plain", "content-length": "26"],
                          framing: .length(26), keepAlive: true, expectsContinue: false),
        body: "hello\r\nworld\r\n0\r\n\r\nGET / X"),
    ValidRequestCase(
        name: "POST chunked with extensions and trailers",
        raw: "POST /upload HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n"
            + "1;a=b;quoted=\"x y\"\r\n \r\n"
            + "A\r\n0123456789\r\n"
            + "b\r\n\r\nabc\r\ndef\r\r\n"
            + "0;last=1\r\nX-Checksum: abc\r\nX-Count: 4\r\n\r\n",
        head: RequestHead(method: "POST", target: "/upload", version: .http1_1,
                          headers: ["host": "example.com", "transfer-encoding": "chunked"],
                          framing: .chunked, keepAlive: true, expectsContinue: false),
        body: "hello 0123456789\r\nabc\r\ndef\r"),
    ValidRequestCase(
        name: "HTTP/1.0 keep-alive",
        raw: "GET /legacy HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
        head: RequestHead(method: "GET", target: "/legacy", version: .http1_0,
                          headers: ["connection": "Keep-Alive"],
                          framing: .none, keepAlive: true, expectsContinue: false),
        body: ""),
    ValidRequestCase(
        name: "absolute-form target",
        raw: "GET http://example.com:8080/a/b?q=1 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
        head: RequestHead(method: "GET", target: "http://example.com:8080/a/b?q=1", version: .http1_1,
                          headers: ["host": "example.com:8080"],
                          framing: .none, keepAlive: true, expectsContinue: false),
        body: ""),
]

@Suite("Parser: the same events however the bytes arrive")
struct ParserIncrementalTests {
    @Test("all at once gives the expected head, body and end", arguments: validRequests)
    func allAtOnce(_ request: ValidRequestCase) {
        let outcome = parse([request.bytes])
        #expect(outcome.error == nil)
        #expect(outcome.events == request.expectedEvents)
    }

    @Test("byte by byte gives the same events", arguments: validRequests)
    func byteByByte(_ request: ValidRequestCase) {
        let outcome = parseByteByByte(request.bytes)
        #expect(outcome.error == nil)
        #expect(outcome.events == request.expectedEvents)
    }

    @Test("split into two feeds at every position gives the same events", arguments: validRequests)
    func everyTwoWaySplit(_ request: ValidRequestCase) {
        let bytes = request.bytes
        var differing: [Int] = []
        for split in 0...bytes.count {
            let outcome = parse([Array(bytes[..<split]), Array(bytes[split...])])
            if outcome.error != nil || outcome.events != request.expectedEvents { differing.append(split) }
        }
        #expect(differing.isEmpty, "split positions with different events: \(differing)")
    }

    @Test("nothing is emitted for the body or end before the bytes arrive")
    func noEventsAheadOfBytes() throws {
        let request = validRequests[1]
        let bytes = request.bytes
        let headLength = try #require(bytes.firstRange(of: [13, 10, 13, 10])).lowerBound + 4
        // Everything but the last body byte: a head and 25 body bytes, no end.
        let outcome = parse([Array(bytes.dropLast())])
        #expect(outcome.events == [.head(request.head), .body(Array(bytes[headLength..<(bytes.count - 1)]))])
        // The head alone, without its final LF: no event at all.
        #expect(parse([Array(bytes[..<(headLength - 1)])]).events.isEmpty)
    }

    @Test("trailers are checked but do not reach the head")
    func trailersAreNotMerged() throws {
        let outcome = parse(validRequests[2].raw)
        let head = try #require(outcome.heads.first)
        #expect(!head.headers.contains("x-checksum"))
        #expect(head.headers.count == 2)
    }

    @Test("an absolute-form target has the path and query of its origin form")
    func absoluteFormPath() throws {
        let head = try #require(parseHead(validRequests[4].raw))
        #expect(head.path == "/a/b")
        #expect(head.query == "q=1")
        let bare = try #require(parseHead("GET http://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n"))
        #expect(bare.path == "/")
    }

    @Test("leading empty lines before a request line are tolerated")
    func leadingEmptyLines() {
        let outcome = parse("\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(outcome.error == nil)
        #expect(outcome.heads.map(\.target) == ["/"])
    }

    // MARK: - Pipelining

    static let pipelined = "GET /one HTTP/1.1\r\nHost: x\r\n\r\n"
        + "POST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
        + "POST /three HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n0\r\n\r\n"

    static func expectPipelinedEvents(_ outcome: ParseOutcome, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome.error == nil, sourceLocation: sourceLocation)
        #expect(outcome.heads.map(\.target) == ["/one", "/two", "/three"], sourceLocation: sourceLocation)
        let shape = outcome.events.map { event -> String in
            switch event {
            case .head(let head): "head \(head.target)"
            case .body(let bytes): "body \(String(decoding: bytes, as: UTF8.self))"
            case .end: "end"
            }
        }
        #expect(shape == ["head /one", "end", "head /two", "body abc", "end", "head /three", "body de", "end"],
                sourceLocation: sourceLocation)
    }

    @Test("three pipelined requests in one feed give three head..end sequences in order")
    func threePipelinedInOneFeed() {
        Self.expectPipelinedEvents(parse(Self.pipelined))
    }

    @Test("three pipelined requests byte by byte and split anywhere give the same sequences")
    func threePipelinedIncrementally() {
        let bytes = Array(Self.pipelined.utf8)
        Self.expectPipelinedEvents(parseByteByByte(bytes))
        let expected = parse(Self.pipelined)
        var differing: [Int] = []
        for split in 0...bytes.count where parse([Array(bytes[..<split]), Array(bytes[split...])]) != expected {
            differing.append(split)
        }
        #expect(differing.isEmpty, "split positions with different events: \(differing)")
    }

    @Test("isBetweenRequests is true only when nothing of a next request is buffered")
    func betweenRequests() throws {
        var parser = HTTPRequestParser()
        #expect(parser.isBetweenRequests)
        parser.feed(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\nGE".utf8))
        #expect(try parser.next() != nil)  // head
        #expect(try parser.next() == .end)
        #expect(!parser.isBetweenRequests)  // "GE" of the next request is buffered
        #expect(try parser.next() == nil)
    }
}
