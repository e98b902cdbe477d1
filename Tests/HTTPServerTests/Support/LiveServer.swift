import Locking
import Testing
import TestSupport
@testable import HTTPServer

extension ServerLimits {
    /// The defaults, with the timeouts stretched as the tests' own waits are: a test that only
    /// needs the server to wait for it must not race a sanitizer's slowdown. Tests of the
    /// timeouts pass limits of their own.
    static var defaultsForTests: ServerLimits {
        var limits = ServerLimits()
        limits.headerTimeout = TestTiming.scaled(limits.headerTimeout)
        limits.bodyIdleTimeout = TestTiming.scaled(limits.bodyIdleTimeout)
        limits.bodyRateGrace = TestTiming.scaled(limits.bodyRateGrace)
        limits.keepAliveIdleTimeout = TestTiming.scaled(limits.keepAliveIdleTimeout)
        limits.writeTimeout = TestTiming.scaled(limits.writeTimeout)
        return limits
    }
}

/// The routes every live test serves. `slowStarted` counts the `/slow` handlers that began, for a
/// test that must act while one runs.
func makeLiveTestRouter(slowStarted: Locked<Int>? = nil) -> Router {
    var router = Router()
    router.get("/hello", .immediate { _ in
        Response(headers: ["Content-Type": "text/plain"], body: Array("hello".utf8))
    })
    router.post("/echo", .async { request in
        await Task.yield()
        return Response(headers: ["Content-Type": "application/octet-stream"], body: request.body)
    })
    // Long enough that a test on a loaded machine still acts while it runs.
    router.get("/slow", .async { _ in
        slowStarted?.withLock { $0 += 1 }
        try await Task.sleep(for: .milliseconds(600))
        return Response(headers: ["Content-Type": "text/plain"], body: Array("slow".utf8))
    })
    router.get("/id", .immediate { request in
        Response(headers: ["Content-Type": "text/plain"], body: Array(request.id.utf8))
    })
    return router
}

/// Starts a server on an ephemeral port of 127.0.0.1, runs `body`, and shuts the server down
/// whatever happens. Each test gets its own server, so tests can run in parallel.
/// `configure` changes the rest of the server's configuration.
func withLiveServer(limits: ServerLimits = .defaultsForTests, configure: (inout HTTPServer.Configuration) -> Void = { _ in },
                    _ body: (HTTPServer, Int) async throws -> Void) async throws {
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, limits: limits)
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, router: makeLiveTestRouter())
    let port = try server.start()
    #expect(port > 0)
    #expect(server.port == port)
    do {
        try await body(server, port)
    } catch {
        await server.shutdown(gracePeriod: .milliseconds(200))
        throw error
    }
    await server.shutdown(gracePeriod: .milliseconds(200))
}

/// A request in the shape most tests send.
func rawRequest(_ method: String, _ target: String, headers: [String] = [], body: String? = nil) -> String {
    var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    for header in headers { text += header + "\r\n" }
    if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
    text += "\r\n"
    return text + (body ?? "")
}
