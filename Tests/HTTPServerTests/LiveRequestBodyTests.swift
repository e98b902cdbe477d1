import Testing
import TestSupport
@testable import HTTPServer

@Suite("Live server: request bodies")
struct LiveRequestBodyTests {
    @Test("a body of exactly maxBodyBytes (1 MiB) is echoed intact")
    func largestBody() async throws {
        try await withLiveServer { _, port in
            let size = ServerLimits().maxBodyBytes
            #expect(size == 1024 * 1024)
            let body = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n".utf8) + body,
                                  timeout: .seconds(10))
            let response = try await client.readResponse(timeout: .seconds(10))
            #expect(response.status == 200)
            #expect(response.header("Content-Length") == String(size))
            #expect(response.body.count == size)
            #expect(response.body == body)
        }
    }

    @Test("Content-Length of maxBodyBytes + 1 is refused with 413 from the head alone, and the connection closes")
    func bodyTooLarge() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            // No body byte is sent: the answer must come from the Content-Length alone.
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(ServerLimits().maxBodyBytes + 1)\r\n\r\n")
            let response = try await client.readResponse(timeout: .seconds(3))
            expectProblem(response, status: 413, code: "body_too_large")
            #expect(response.header("Connection") == "close")
            #expect(await client.closesWithin(.seconds(2)))
        }
    }

    @Test("a chunked body is echoed, and the connection is reusable after it")
    func chunkedBody() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n" + "6;ext=1\r\n world\r\n" + "0\r\nX-Trailer: t\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "hello world")
            #expect(response.header("Transfer-Encoding") == nil)
            try await client.send(rawRequest("GET", "/hello"))
            #expect(try await client.readResponse().text == "hello")
        }
    }

    @Test("a body sent in several writes with pauses is assembled")
    func trickledBody() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\nabc")
            try await Task.sleep(for: .milliseconds(30))
            try await client.send("def")
            try await Task.sleep(for: .milliseconds(30))
            try await client.send("ghi")
            #expect(try await client.readResponse().text == "abcdefghi")
        }
    }

    @Test("Expect: 100-continue gets HTTP/1.1 100 Continue before the body is sent, then the final response")
    func expectContinue() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\nExpect: 100-continue\r\n\r\n")
            let interim = try await client.readResponse(timeout: .seconds(3))
            #expect(interim.version == "HTTP/1.1")
            #expect(interim.status == 100)
            #expect(interim.reason == "Continue")
            try await client.send("payload")
            let final = try await client.readResponse(timeout: .seconds(3))
            #expect(final.status == 200)
            #expect(final.text == "payload")
        }
    }

    @Test("Expect: 100-continue with a Content-Length over the limit gets 413 and no 100 Continue")
    func expectContinueTooLarge() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(ServerLimits().maxBodyBytes + 1)\r\nExpect: 100-continue\r\n\r\n")
            let response = try await client.readResponse(timeout: .seconds(3))
            expectProblem(response, status: 413, code: "body_too_large")
            #expect(await client.closesWithin(.seconds(2)))
        }
    }

    @Test("HTTP/1.0 with Expect: 100-continue gets no interim response")
    func expectContinueHTTP10() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send("POST /echo HTTP/1.0\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
            #expect(try await client.receivesAnythingWithin(.milliseconds(200)) == false)
            try await client.send("ok")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "ok")
        }
    }
}
