import Testing
import TestSupport
@testable import HTTPServer

@Suite("Live server: keep-alive, pipelining and closing")
struct LiveConnectionReuseTests {
    @Test("two requests on one keep-alive connection are both answered")
    func keepAlive() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("GET", "/hello"))
            let first = try await client.readResponse()
            #expect(first.status == 200)
            #expect(first.text == "hello")
            #expect(first.header("Connection") == nil)
            try await client.send(rawRequest("POST", "/echo", body: "second"))
            let second = try await client.readResponse()
            #expect(second.status == 200)
            #expect(second.text == "second")
            #expect(!client.peerClosed)
        }
    }

    @Test("every request on busy keep-alive connections is answered, whether the loops look before they sleep or not",
          arguments: [Duration.zero, .microseconds(10), .milliseconds(2)])
    func busyConnectionsWithLooks(pollBeforeSleep: Duration) async throws {
        // Sockets are edge-triggered: a readiness that a look found and then dropped would never
        // be reported again, and that connection's next answer would never come.
        try await withLiveServer(configure: {
            $0.eventLoopCount = 2
            $0.pollBeforeSleep = pollBeforeSleep
        }) { _, port in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for connection in 0..<4 {
                    group.addTask {
                        let client = try await RawHTTPClient.connect(port: port)
                        var answered = 0
                        for index in 0..<150 {
                            let text = "c\(connection)-\(index)"
                            try await client.send(rawRequest("POST", "/echo", body: text))
                            let response = try await client.readResponse()
                            if response.status == 200 && response.text == text { answered += 1 }
                            // Now and then a pause, so the loops also run dry and sleep.
                            if index % 50 == 49 { try await Task.sleep(for: .milliseconds(5)) }
                        }
                        return answered
                    }
                }
                for try await answered in group { #expect(answered == 150) }
            }
        }
    }

    @Test("three pipelined requests in one write are answered in order")
    func pipelined() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            // The first is slow and async, so answering out of order would show.
            try await client.send(rawRequest("GET", "/slow")
                + rawRequest("POST", "/echo", body: "two")
                + rawRequest("GET", "/hello"))
            let responses = [try await client.readResponse(), try await client.readResponse(), try await client.readResponse()]
            #expect(responses.map(\.status) == [200, 200, 200])
            #expect(responses.map(\.text) == ["slow", "two", "hello"])
            #expect(Set(responses.compactMap { $0.header("X-Request-Id") }).count == 3)
        }
    }

    @Test("Connection: close is answered with Connection: close, then the server closes")
    func clientAsksToClose() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("GET", "/hello", headers: ["Connection: close"]))
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.header("Connection") == "close")
            #expect(try await client.readUntilClosed(timeout: .seconds(2)).isEmpty)
        }
    }

    @Test("HTTP/1.0 closes by default and stays open with Connection: keep-alive")
    func http10() async throws {
        try await withLiveServer { _, port in
            let plain = try await RawHTTPClient.connect(port: port)
            try await plain.send("GET /hello HTTP/1.0\r\n\r\n")
            let closing = try await plain.readResponse()
            #expect(closing.status == 200)
            #expect(closing.header("Connection") == "close")
            #expect(await plain.closesWithin(.seconds(2)))

            let kept = try await RawHTTPClient.connect(port: port)
            try await kept.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let first = try await kept.readResponse()
            #expect(first.status == 200)
            #expect(first.header("Connection")?.lowercased() == "keep-alive")
            try await kept.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try await kept.readResponse().text == "hello")
        }
    }

    @Test("a client that half-closes after its request still gets the answer")
    func halfClose() async throws {
        try await withLiveServer { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("GET", "/slow"))
            client.shutdownWrite()
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "slow")
            #expect(response.header("Connection") == "close")
            #expect(await client.closesWithin(.seconds(2)))
        }
    }
}
