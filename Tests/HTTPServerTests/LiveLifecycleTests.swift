import Glibc
import Locking
import Testing
import TestSupport
@testable import HTTPServer

@Suite("Live server: shutdown, timeouts and the connection cap")
struct LiveLifecycleTests {
    @Test("graceful shutdown answers the request in flight with Connection: close, closes idle connections, then refuses new ones")
    func gracefulShutdown() async throws {
        let slowStarted = Locked(0)
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), router: makeLiveTestRouter(slowStarted: slowStarted))
        let port = try server.start()
        let idle = try await RawHTTPClient.connect(port: port)
        try await idle.send(rawRequest("GET", "/hello"))
        #expect(try await idle.readResponse().status == 200)

        let slow = try await RawHTTPClient.connect(port: port)
        try await slow.send(rawRequest("GET", "/slow"))
        #expect(try await waitUntil(.seconds(10)) { slowStarted.withLock { $0 } == 1 }, "the slow handler began")

        let clock = ContinuousClock()
        let started = clock.now
        let shutdown = Task { await server.shutdown() }

        #expect(await idle.closesWithin(.seconds(1)), "an idle keep-alive connection is closed at once")
        let response = try await slow.readResponse(timeout: .seconds(3))
        #expect(response.status == 200)
        #expect(response.text == "slow")
        #expect(response.header("Connection") == "close")
        #expect(await slow.closesWithin(.seconds(2)))

        await shutdown.value
        // It returned once the connections were closed, not after the whole grace period.
        #expect(clock.now - started < .seconds(3))
        #expect(server.openConnections == 0)

        do {
            _ = try await RawHTTPClient.connect(port: port, timeout: .seconds(2))
            Issue.record("a connection was accepted after shutdown")
        } catch let error as RawHTTPError {
            #expect(error == .connectFailed(ECONNREFUSED))
        }
    }

    @Test("a client that sends half a request line and stalls gets 408 and a close")
    func headerTimeout() async throws {
        var limits = ServerLimits()
        limits.headerTimeout = .milliseconds(300)
        try await withLiveServer(limits: limits) { _, port in
            let clock = ContinuousClock()
            let client = try await RawHTTPClient.connect(port: port)
            let started = clock.now
            try await client.send("GET /hel")
            let response = try await client.readResponse(timeout: .seconds(5))
            expectProblem(response, status: 408, code: "request_timeout")
            #expect(response.header("Connection") == "close")
            #expect(await client.closesWithin(.seconds(1)))
            let elapsed = clock.now - started
            #expect(elapsed >= .milliseconds(250))
            // Far below the 10 s default: the configured timeout applied (with room for a loaded machine).
            #expect(elapsed < TestTiming.scaled(.seconds(5)))
        }
    }

    @Test("a connection that never sends anything is closed after the header timeout, without a response")
    func silentConnection() async throws {
        var limits = ServerLimits()
        limits.headerTimeout = .milliseconds(300)
        try await withLiveServer(limits: limits) { _, port in
            let client = try await RawHTTPClient.connect(port: port)
            #expect(try await client.readUntilClosed(timeout: .seconds(2)).isEmpty)
        }
    }

    @Test("the header timeout is not extended by a client trickling bytes")
    func headerTimeoutNotExtended() async throws {
        var limits = ServerLimits()
        limits.headerTimeout = .milliseconds(300)
        try await withLiveServer(limits: limits) { _, port in
            let clock = ContinuousClock()
            let client = try await RawHTTPClient.connect(port: port)
            let started = clock.now
            var status: Int?
            for byte in "GET /hello HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8 {
                do { try await client.send([byte]) } catch { break }
                if try await client.receivesAnythingWithin(.milliseconds(50)) {
                    status = try await client.readResponse(timeout: .seconds(1)).status
                    break
                }
            }
            #expect(status == 408)
            #expect(clock.now - started < TestTiming.scaled(.seconds(5)))
        }
    }

    @Test("an idle keep-alive connection is closed after keepAliveIdleTimeout")
    func keepAliveIdleTimeout() async throws {
        var limits = ServerLimits()
        limits.keepAliveIdleTimeout = .milliseconds(300)
        try await withLiveServer(limits: limits) { _, port in
            let clock = ContinuousClock()
            let client = try await RawHTTPClient.connect(port: port)
            // The server's idle period starts after it received the request, so after this instant.
            let sent = clock.now
            try await client.send(rawRequest("GET", "/hello"))
            #expect(try await client.readResponse().status == 200)
            let answered = clock.now
            #expect(try await client.readUntilClosed(timeout: .seconds(5)).isEmpty, "closed without sending anything")
            // 300 ms less the timer's 50 ms leeway, at the earliest; far below the 60 s default at
            // the latest (with room for a loaded machine).
            #expect(clock.now - sent >= .milliseconds(240))
            #expect(clock.now - answered < TestTiming.scaled(.seconds(5)))
        }
    }

    @Test("with maxConnections = 2 a third connection waits until one of the first two closes")
    func connectionCap() async throws {
        var limits = ServerLimits()
        limits.maxConnections = 2
        try await withLiveServer(limits: limits) { server, port in
            let first = try await RawHTTPClient.connect(port: port)
            try await first.send(rawRequest("GET", "/hello"))
            #expect(try await first.readResponse().status == 200)
            let second = try await RawHTTPClient.connect(port: port)
            try await second.send(rawRequest("GET", "/hello"))
            #expect(try await second.readResponse().status == 200)
            #expect(server.openConnections == 2)

            // The kernel completes the handshake (the listen backlog), but the server must not serve it.
            let third = try await RawHTTPClient.connect(port: port)
            try await third.send(rawRequest("GET", "/hello"))
            #expect(try await third.receivesAnythingWithin(.milliseconds(400)) == false)
            #expect(server.openConnections == 2)

            first.close()
            let response = try await third.readResponse(timeout: .seconds(3))
            #expect(response.status == 200)
            #expect(response.text == "hello")
            // The second connection was served all along.
            try await second.send(rawRequest("GET", "/hello"))
            #expect(try await second.readResponse().status == 200)
        }
    }
}
