import Foundation
import Testing
import TestSupport

/// The real binary on a loopback port: what a client and an operator see.
@Suite(.oneInstance) struct ServeTests {
    @Test func healthAndReadinessAnswerWithoutAToken() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let service = try ServiceProcess(arguments: ["--data-dir", directory.path("data")])
            let client = try service.client()
            let health = try client.request("GET", "/healthz")
            #expect(health.status == 200)
            #expect(health.header("Content-Type") == "application/json")
            #expect(health.json?["status"] as? String == "ok")
            #expect(health.header("Date") != nil)
            #expect(health.header("X-Request-Id") != nil)
            let ready = try client.request("GET", "/readyz")
            #expect(ready.status == 200)
            #expect(ready.json?["status"] as? String == "ready")
            let openAPI = try client.request("GET", "/openapi.json")
        #expect(openAPI.status == 200)
        #expect(openAPI.json?["openapi"] as? String == "3.1.0")
        let head = try client.request("HEAD", "/healthz")
            #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == "15")
            #expect(TestStore.isPostgres || FileManager.default.fileExists(atPath: directory.path("data/bouncer.sqlite3")))
        }
    }

    @Test func swiftLogLevelNamesAreAccepted() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            // (Not `warning`: the test learns the port from the `listening` line, which is info.)
            let service = try ServiceProcess(arguments: ["--data-dir", directory.path("data"), "--log-level", "notice"])
            #expect(try service.client().request("GET", "/readyz").status == 200)
            let refused = try ServiceProcess.run(["serve", "--data-dir", directory.path("other"), "--log-level", "loud"])
            #expect(refused.status != 0)
            #expect(refused.output.contains("--log-level must be one of trace, debug, info, notice, warning (or warn), error, critical"))
        }
    }

    @Test func theEventLoopsMayBeChosen() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let service = try ServiceProcess(arguments: ["--data-dir", directory.path("data"), "--event-loops", "1",
                                                         "--event-loop-poll-microseconds", "0"])
            let clients = try (0..<4).map { _ in try service.client() }
            for client in clients { #expect(try client.request("GET", "/healthz").status == 200) }
            for (option, bad) in [("--event-loops", "0"), ("--event-loops", "257"), ("--event-loops", "many"),
                                  ("--event-loop-poll-microseconds", "-1"), ("--event-loop-poll-microseconds", "1001")] {
                let refused = try ServiceProcess.run(["serve", "--data-dir", directory.path("other"), option, bad])
                #expect(refused.status != 0, "\(option) \(bad)")
                #expect(refused.output.contains(option), "\(refused.output)")
            }
        }
    }

    /// `count` services, each on a data directory of its own in `directory`, started from as many
    /// tasks at once.
    static func startAtOnce(_ count: Int, in directory: TemporaryDirectory) async throws -> [ServiceProcess] {
        try await withThrowingTaskGroup(of: ServiceProcess.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await blocking { try ServiceProcess(arguments: ["--data-dir", directory.path("data-\(index)")], instances: 1) }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// Services let go of by many tasks at once are each killed and reaped, however few threads
    /// the tasks' pool has: their reaping never waits for a thread of that pool (a test run once
    /// hung so, with the killed services left as zombies).
    @Test func servicesReleasedAtOnceByTasksAreReaped() async throws {
        // Started at once too, as a child started meanwhile can keep Foundation from seeing
        // another's end (see `servicesStartedAtOnceAreEachSeenToEnd`).
        let directory = try TemporaryDirectory()
        let services = try await Self.startAtOnce(6, in: directory)
        let pids = services.map(\.process.processIdentifier)
        final class Box: @unchecked Sendable {
            var service: ServiceProcess?
            init(_ service: ServiceProcess) { self.service = service }
        }
        let boxes = services.map(Box.init)
        _ = consume services
        await withTaskGroup(of: Void.self) { group in
            for box in boxes { group.addTask { box.service = nil } }
        }
        for pid in pids {
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "service \(pid) was reaped")
        }
    }

    /// Services started at once and stopped are each seen to end while the others run: Foundation
    /// learns of a child's end when a descriptor the child holds closes, and a child started in
    /// the same moment can inherit that descriptor and keep it open, so its watch can miss an end
    /// for as long as another service lives (a stopped service once "ran" 10 s on so).
    @Test func servicesStartedAtOnceAreEachSeenToEnd() async throws {
        let directory = try TemporaryDirectory()
        let services = try await Self.startAtOnce(8, in: directory)
        try await blocking {
            for (index, service) in services.enumerated() {
                #expect(service.stop() == 0, "service \(index) of \(services.count); \(service.outputTail)")
                for later in services[(index + 1)...] { #expect(later.isRunning) }
            }
        }
    }

    @Test func errorsAreProblemJSONWithTheRequestID() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let service = try ServiceProcess(arguments: ["--data-dir", directory.path("data")])
            let client = try service.client()
            let missing = try client.request("GET", "/v1/nothing-here", headers: ["X-Request-Id": "trace-123"])
            #expect(missing.status == 404)
            #expect(missing.header("Content-Type") == "application/problem+json")
            #expect(missing.header("X-Request-Id") == "trace-123")
            let problem = try #require(missing.json)
            #expect(problem["status"] as? Int == 404)
            #expect(problem["type"] as? String == "about:blank")
            #expect(problem["title"] as? String == "Not Found")
            #expect(problem["code"] as? String == "not_found")
            #expect(problem["request_id"] as? String == "trace-123")

            let wrongMethod = try client.request("DELETE", "/healthz")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow") == "GET, HEAD")
            #expect(wrongMethod.json?["code"] as? String == "method_not_allowed")
        }
    }

    @Test func everyRequestIsOneJSONLogLine() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let service = try ServiceProcess(arguments: ["--data-dir", directory.path("data")])
            let client = try service.client()
            _ = try client.request("GET", "/healthz", headers: ["X-Request-Id": "log-me-1"])
            _ = try client.request("GET", "/nope", headers: ["X-Request-Id": "log-me-2"])
            #expect(service.stop() == 0, "\(service.outputTail)")
            let records = service.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(records.count == service.lines.count, "every line is a JSON object")
            let startup = try #require(records.first { $0["msg"] as? String == "listening" })
            #expect(startup["port"] as? Int == service.port)
            #expect(startup["level"] as? String == "info")
            let first = try #require(records.first { $0["request_id"] as? String == "log-me-1" })
            #expect(first["msg"] as? String == "request")
            #expect(first["level"] as? String == "info")
            #expect(first["method"] as? String == "GET")
            #expect(first["path"] as? String == "/healthz")
            #expect(first["status"] as? Int == 200)
            #expect(first["bytes"] as? Int == 15)
            #expect(first["duration_ms"] is Double)
            #expect((first["time"] as? String)?.hasSuffix("Z") == true)
            let second = try #require(records.first { $0["request_id"] as? String == "log-me-2" })
            #expect(second["status"] as? Int == 404)
        }
    }

    @Test func theDefaultStoreIsDataUnderTheWorkingDirectory() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let service = try ServiceProcess(directory: directory.url)
            #expect(try service.client().request("GET", "/readyz").status == 200)
            #expect(TestStore.isPostgres || FileManager.default.fileExists(atPath: directory.path("data/bouncer.sqlite3")))
        }
    }

    @Test func pipelinedRequestsInOneWriteAreAnsweredInOrder() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let service = try ServiceProcess(arguments: ["--data-dir", directory.path("data")])
            let client = try service.client()
            try client.send(
                "GET /healthz HTTP/1.1\r\nHost: a\r\nX-Request-Id: one\r\n\r\n"
                    + "GET /missing HTTP/1.1\r\nHost: a\r\nX-Request-Id: two\r\n\r\n"
                    + "GET /readyz HTTP/1.1\r\nHost: a\r\nX-Request-Id: three\r\n\r\n")
            let responses = try (0..<3).map { _ in try client.readResponse() }
            #expect(responses.map(\.status) == [200, 404, 200])
            #expect(responses.map { $0.header("X-Request-Id") } == ["one", "two", "three"])
        }
    }
}
