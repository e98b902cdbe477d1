import Foundation
import Testing
import TestSupport

/// Rate rules shared through PostgreSQL fail closed: when their marks cannot be read, a send is
/// answered 503 `store_unavailable` with `Retry-After` and counted, never judged as if its sender
/// had sent nothing before (which let floods through, with nothing logged).
@Suite(.postgresOnly) struct RateMarksFailClosedTests {
    @Test func aSendWhoseMarksCannotBeReadIsRefused503() async throws {
        let h = try await ServiceHarness()
        let rule = try await h.call("POST", "/v1/rules", as: "root",
                                    body: #"{"kind":"flood","action":"bounce","params":{"threshold":3,"window_seconds":60,"similarity":"identical"}}"#)
        #expect(rule.status == 201, "\(rule.text)")
        #expect(try await h.send("hello", as: "alice").status == 201)
        let database = try #require(h.database)
        _ = try PostgresTestDatabase.psql(database.url, "ALTER TABLE rate_marks RENAME TO rate_marks_away")

        let refused = try await h.send("hello", as: "alice")
        #expect(refused.status == 503, "\(refused.text)")
        #expect(refused.json?["code"] as? String == "store_unavailable")
        #expect(refused.header("retry-after") != nil)
        // Counted by the instance that refused it (requests go to each instance in turn).
        var counted: [Substring] = []
        for _ in h.applications.indices {
            let metrics = try await h.call("GET", "/metrics", as: "root").text
            counted += metrics.split(separator: "\n").filter { $0.hasPrefix("bouncer_rate_ledger_failures_total ") }
        }
        #expect(counted.contains { !$0.hasSuffix(" 0") }, "\(counted)")

        // Back in place, sends are judged by their marks again.
        _ = try PostgresTestDatabase.psql(database.url, "ALTER TABLE rate_marks_away RENAME TO rate_marks")
        let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(20))
        var status = 0
        while ContinuousClock.now < deadline {
            status = try await h.send("hello again", as: "bob").status
            if status == 201 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(status == 201)
    }
}
