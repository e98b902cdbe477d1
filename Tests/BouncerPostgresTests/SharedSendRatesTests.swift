import BouncerStore
import Foundation
import Testing
import TestSupport
@testable import BouncerPostgres

/// The send-rate buckets several instances count in: a user's burst is spent once however the
/// sends are spread over the instances.
@Suite struct SharedSendRatesTests {
    @Test func aBurstSpreadOverThreeInstancesIsGrantedOnce() async throws {
        let database = try PostgresTestDatabase()
        let migrations = try Migration.load(directory: ManyWritersTests.migrations)
        let instances = try (0..<3).map { _ in try PostgresStore(url: database.url, migrations: migrations) }
        defer { for instance in instances { instance.close() } }
        // 60 sends of alice and 5 of bob at once, a third through each instance, at 1 a second
        // with a burst of 10: in the second or so this takes, 10 or 11 of alice's go through.
        let decisions = await withTaskGroup(of: (String, RateDecision).self) { group in
            for index in 0..<65 {
                let user = index < 60 ? "alice" : "bob"
                let rates = try! #require(instances[index % 3].sharedSendRates)
                group.addTask { (user, await rates.take(user, rate: 1, burst: 10)) }
            }
            return await group.reduce(into: [(String, RateDecision)]()) { $0.append($1) }
        }
        let alice = decisions.filter { $0.0 == "alice" }.map(\.1)
        #expect((10...11).contains(alice.filter { $0 == .allowed }.count), "alice: \(alice)")
        #expect(alice.contains(.limited(retryAfter: 1)))
        #expect(decisions.filter { $0.0 == "bob" }.allSatisfy { $0.1 == .allowed }, "bob has a bucket of his own")
    }

    @Test func aBucketRefillsAtTheRateAndNoFurtherThanTheBurst() async throws {
        let database = try PostgresTestDatabase()
        let store = try PostgresStore(url: database.url, migrations: try Migration.load(directory: ManyWritersTests.migrations))
        defer { store.close() }
        let rates = try #require(store.sharedSendRates)
        // A tenth of a token a second: nothing comes back while the test runs, however slowly.
        for _ in 0..<2 { #expect(await rates.take("carol", rate: 0.1, burst: 2) == .allowed) }
        #expect(await rates.take("carol", rate: 0.1, burst: 2) != .allowed)
        // Four a second, a burst of two: after 2.5 s the bucket holds two, not ten.
        for _ in 0..<2 { #expect(await rates.take("erin", rate: 4, burst: 2) == .allowed) }
        try await Task.sleep(for: .milliseconds(2500))
        for _ in 0..<2 { #expect(await rates.take("erin", rate: 4, burst: 2) == .allowed) }
        let left = try PostgresConnection(url: database.url).fetchValue("SELECT tokens FROM send_rate_buckets WHERE user_id = 'erin'",
                                                                          as: Double.self)
        #expect(left.map { $0 < 1 } == true, "the refill stopped at the burst: \(String(describing: left))")
        // A slow rate says how long to wait.
        #expect(await rates.take("dave", rate: 0.25, burst: 1) == .allowed)
        #expect(await rates.take("dave", rate: 0.25, burst: 1) == .limited(retryAfter: 4))
    }
}
