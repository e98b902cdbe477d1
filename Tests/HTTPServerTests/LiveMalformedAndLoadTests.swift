import Glibc
import Testing
import TestSupport
@testable import HTTPServer

@Suite("Live server: malformed requests and many clients")
struct LiveMalformedAndLoadTests {
    @Test("a smuggling attempt (Content-Length with Transfer-Encoding) gets 400, Connection: close, then a close")
    func smuggling() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            // A front end framing by Content-Length and one framing by chunked would disagree on
            // where the second request starts; the server must refuse both and say no more.
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "0\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse(timeout: .seconds(3))
            expectProblem(response, status: 400, code: "conflicting_framing")
            #expect(response.header("Connection") == "close")
            // Nothing else (in particular no answer to the smuggled GET), then the close.
            #expect(try await client.readUntilClosed(timeout: .seconds(2)).isEmpty)
        }
    }

    @Test("a request line over 8 KiB is answered 414 without waiting for its end")
    func requestLineTooLong() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send("GET /" + String(repeating: "a", count: 8 * 1024 + 10))
            let response = try await client.readResponse(timeout: .seconds(3))
            expectProblem(response, status: 414, code: "request_line_too_long")
            #expect(await client.closesWithin(.seconds(2)))
        }
    }

    @Test("an unsupported HTTP version is answered 505")
    func versionNotSupported() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send("GET /hello HTTP/2.0\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse(timeout: .seconds(3))
            expectProblem(response, status: 505, code: "version_not_supported")
            #expect(response.header("Connection") == "close")
        }
    }

    @Test("200 concurrent connections each doing a request all succeed")
    func concurrentConnections() async throws {
        try await withLiveServer { _, port in
            let results = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let client = try await RawHTTPClient.connect(port: port, timeout: .seconds(5))
                        let body = "client-\(index)"
                        try await client.send(rawRequest("POST", "/echo", body: body))
                        let response = try await client.readResponse(timeout: .seconds(10))
                        return response.status == 200 && response.text == body
                    }
                }
                var results: [Bool] = []
                for try await result in group { results.append(result) }
                return results
            }
            #expect(results.count == 200)
            #expect(results.allSatisfy { $0 })
        }
    }
}
