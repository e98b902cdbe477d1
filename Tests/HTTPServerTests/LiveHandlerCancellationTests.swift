import Locking
import Testing
import TestSupport
@testable import HTTPServer

/// An async handler learns that its client went away (`Request.client`), so work that checks (a
/// dry run's scan) stops instead of running on for nobody; a handler that does not check still
/// answers a client that only shut its sending side.
@Suite("Live server: a handler's client going away")
struct LiveHandlerCancellationTests {
    /// A handler that waits, checking for its client, until `limit` passes; it counts the
    /// handlers that began and those that saw their client go.
    static func router(started: Locked<Int>, cancelled: Locked<Int>, limit: Duration) -> Router {
        var router = Router()
        router.get("/long", .async { request in
            started.withLock { $0 += 1 }
            let end = ContinuousClock.now + limit
            while ContinuousClock.now < end {
                if request.client?.isGone ?? false {
                    cancelled.withLock { $0 += 1 }
                    throw CancellationError()
                }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return Response(headers: ["Content-Type": "text/plain"], body: Array("done".utf8))
        })
        return router
    }

    static func withServer(started: Locked<Int>, cancelled: Locked<Int>, limit: Duration, _ body: (Int) async throws -> Void) async throws {
        let server = HTTPServer(configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0, limits: .defaultsForTests),
                                router: router(started: started, cancelled: cancelled, limit: limit))
        let port = try server.start()
        do {
            try await body(port)
        } catch {
            await server.shutdown(gracePeriod: .milliseconds(200))
            throw error
        }
        await server.shutdown(gracePeriod: .milliseconds(200))
    }

    @Test("a client that closes while its request is handled is seen gone by the handler")
    func closingCancels() async throws {
        let (started, cancelled) = (Locked(0), Locked(0))
        try await Self.withServer(started: started, cancelled: cancelled, limit: .seconds(30)) { port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("GET", "/long"))
            #expect(try await waitUntil { started.withLock { $0 } == 1 })
            client.close()
            #expect(try await waitUntil(.seconds(5)) { cancelled.withLock { $0 } == 1 }, "cancelled within seconds, not after 30")
        }
    }

    @Test("a client that closes right after sending its request is seen gone, whether its end was read with the request or later")
    func closingAtOnce() async throws {
        let (started, cancelled) = (Locked(0), Locked(0))
        try await Self.withServer(started: started, cancelled: cancelled, limit: .seconds(30)) { port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("GET", "/long"))
            client.close()
            #expect(try await waitUntil(.seconds(5)) { cancelled.withLock { $0 } == 1 }, "seen gone within seconds, not after 30")
        }
    }

    @Test("a client that stays gets the handler's answer, and is never seen gone")
    func stayingIsAnswered() async throws {
        let (started, cancelled) = (Locked(0), Locked(0))
        try await Self.withServer(started: started, cancelled: cancelled, limit: .milliseconds(200)) { port in
            let client = try await RawHTTPClient.connect(port: port)
            try await client.send(rawRequest("GET", "/long"))
            #expect(try await client.readResponse(timeout: .seconds(10)).text == "done")
            #expect(cancelled.withLock { $0 } == 0)
        }
    }
}
