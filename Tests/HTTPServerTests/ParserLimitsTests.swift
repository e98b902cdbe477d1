import Testing
@testable import HTTPServer

/// Every size limit is enforced as soon as it is known to be exceeded, not after the excess has
/// been buffered.
@Suite("Parser: size limits")
struct ParserLimitsTests {
    let limits = ServerLimits()

    /// A request line of exactly `length` bytes, without its CRLF.
    func requestLine(length: Int) -> String {
        let fixed = "GET / HTTP/1.1".utf8.count
        return "GET /" + String(repeating: "a", count: length - fixed) + " HTTP/1.1"
    }

    @Test("a request line of exactly maxRequestLineBytes is accepted")
    func requestLineAtLimit() {
        let line = requestLine(length: limits.maxRequestLineBytes)
        #expect(line.utf8.count == 8 * 1024)
        let outcome = parse(line + "\r\nHost: x\r\n\r\n")
        #expect(outcome.error == nil)
        #expect(outcome.heads.count == 1)
    }

    @Test("a request line one byte over the limit is refused with 414")
    func requestLineOverLimit() throws {
        let error = try #require(parseError(requestLine(length: limits.maxRequestLineBytes + 1) + "\r\nHost: x\r\n\r\n"))
        #expect(error.status.code == 414)
        #expect(error.code == "request_line_too_long")
    }

    @Test("a request line over 8 KiB fails before its end arrives", arguments: [1, 4, 100])
    func requestLineFailsEarly(extra: Int) throws {
        // No CRLF anywhere: the parser must not wait for the rest of the line.
        let partial = Array(("GET /" + String(repeating: "a", count: limits.maxRequestLineBytes + extra)).utf8)
        let error = try #require(parse([partial]).error)
        #expect(error.status.code == 414)
        #expect(error.code == "request_line_too_long")
        // Same when it trickles in: the error comes within a couple of bytes of the limit.
        var parser = HTTPRequestParser(limits: limits)
        var fedWhenFailed: Int?
        for (index, byte) in partial.enumerated() {
            parser.feed([byte])
            do { _ = try parser.next() } catch {
                fedWhenFailed = index + 1
                #expect(error.status.code == 414)
                break
            }
        }
        let fed = try #require(fedWhenFailed)
        #expect(fed <= limits.maxRequestLineBytes + 2)
    }

    @Test("a header section over 16 KiB in one long line fails before the line ends")
    func headerLineFailsEarly() throws {
        let start = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "b", count: limits.maxHeaderBytes)
        let error = try #require(parseError(start))
        #expect(error.status.code == 431)
        #expect(error.code == "header_section_too_large")
    }

    @Test("a header section over 16 KiB in many short lines is refused with 431, before it ends")
    func manyLinesOverLimit() throws {
        // 90 lines of 200 bytes: 18,000 bytes, under the field count limit but over the byte limit.
        var text = "GET / HTTP/1.1\r\nHost: x\r\n"
        for index in 0..<90 {
            let name = "X-F\(index): "
            text += name + String(repeating: "v", count: 198 - name.utf8.count) + "\r\n"
        }
        // No blank line at the end: the section is known to be too large already.
        let error = try #require(parseError(text))
        #expect(error.status.code == 431)
        #expect(error.code == "header_section_too_large")
    }

    @Test("a header section well under 16 KiB is accepted")
    func headerSectionUnderLimit() {
        var text = "GET / HTTP/1.1\r\nHost: x\r\n"
        for index in 0..<70 {
            let name = "X-F\(index): "
            text += name + String(repeating: "v", count: 198 - name.utf8.count) + "\r\n"
        }
        let outcome = parse(text + "\r\n")
        #expect(outcome.error == nil)
        #expect(outcome.heads.first?.headers.count == 71)
    }

    /// A request with `count` header fields, Host included.
    func request(fieldCount count: Int) -> String {
        var text = "GET / HTTP/1.1\r\nHost: x\r\n"
        for index in 1..<count { text += "X-\(index): \(index)\r\n" }
        return text + "\r\n"
    }

    @Test("100 header fields are accepted")
    func hundredFields() {
        let outcome = parse(request(fieldCount: 100))
        #expect(outcome.error == nil)
        #expect(outcome.heads.first?.headers.count == 100)
    }

    @Test("101 header fields are refused with 431")
    func hundredAndOneFields() throws {
        let error = try #require(parseError(request(fieldCount: 101)))
        #expect(error.status.code == 431)
        #expect(error.code == "header_section_too_large")
    }

    @Test("Content-Length of exactly maxBodyBytes is accepted")
    func contentLengthAtLimit() throws {
        let outcome = parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(limits.maxBodyBytes)\r\n\r\n")
        #expect(outcome.error == nil)
        #expect(outcome.heads.first?.framing == .length(1024 * 1024))
    }

    @Test("Content-Length over 1 MiB is refused with 413 at the head, before any body byte")
    func contentLengthOverLimit() throws {
        var parser = HTTPRequestParser(limits: limits)
        parser.feed(Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(limits.maxBodyBytes + 1)\r\n\r\n".utf8))
        let error = #expect(throws: HTTPParseError.self) { try parser.next() }
        #expect(error?.status.code == 413)
        #expect(error?.code == "body_too_large")
    }

    func chunk(_ size: Int) -> String {
        String(size, radix: 16) + "\r\n" + String(repeating: "z", count: size) + "\r\n"
    }

    @Test("chunks summing to exactly maxBodyBytes are accepted")
    func chunkedAtLimit() throws {
        let half = limits.maxBodyBytes / 2
        let outcome = parse("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk(half) + chunk(half) + "0\r\n\r\n")
        #expect(outcome.error == nil)
        guard outcome.events.count == 3, case .body(let body) = outcome.events[1] else {
            Issue.record("unexpected events \(outcome.events)")
            return
        }
        #expect(body.count == limits.maxBodyBytes)
        #expect(outcome.events[2] == .end)
    }

    @Test("chunks summing to more than maxBodyBytes are refused with 413 at the chunk that crosses it")
    func chunkedOverLimit() throws {
        let half = limits.maxBodyBytes / 2
        // The third chunk's size line is the last thing fed: its data never arrives.
        let text = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk(half) + chunk(half) + "1\r\n"
        let error = try #require(parseError(text))
        #expect(error.status.code == 413)
        #expect(error.code == "body_too_large")
    }

    @Test("a single chunk over the limit is refused at its size line")
    func singleHugeChunk() throws {
        let text = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + String(limits.maxBodyBytes + 1, radix: 16) + "\r\n"
        let error = try #require(parseError(text))
        #expect(error.status.code == 413)
    }

    @Test("limits come from the ServerLimits the parser is given")
    func customLimits() throws {
        var small = ServerLimits()
        small.maxBodyBytes = 10
        small.maxRequestLineBytes = 32
        #expect(parseError("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n", limits: small)?.status.code == 413)
        #expect(parseError("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789", limits: small) == nil)
        #expect(parseError("GET /" + String(repeating: "a", count: 40) + " HTTP/1.1\r\n", limits: small)?.status.code == 414)
    }
}
