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
        // One token in 1,000 s: nothing comes back while the test runs, however slowly (under
        // ThreadSanitizer, beside every other suite, seconds pass between two statements).
        for _ in 0..<2 { #expect(await rates.take("carol", rate: 0.001, burst: 2) == .allowed) }
        #expect(await rates.take("carol", rate: 0.001, burst: 2) != .allowed)
        // One a second, a burst of two: after 5 s the bucket holds two, not five. Spent, it holds
        // what came back since (`refilled`, at most the time measured around it); without the
        // cap it would hold three more.
        for _ in 0..<2 { #expect(await rates.take("erin", rate: 1, burst: 2) == .allowed) }
        try await Task.sleep(for: .seconds(5))
        let spent = ContinuousClock.now
        for _ in 0..<2 { #expect(await rates.take("erin", rate: 1, burst: 2) == .allowed) }
        let left = try PostgresConnection(url: database.url).fetchValue("SELECT tokens FROM send_rate_buckets WHERE user_id = 'erin'",
                                                                          as: Double.self)
        let refilled = Double((ContinuousClock.now - spent).components.seconds) + 1
        #expect(left.map { $0 < refilled } == true, "the refill stopped at the burst: \(String(describing: left)) left, \(refilled) s")
        // A slow rate says how long to wait: about 100 s for one token at 0.01 a second.
        #expect(await rates.take("dave", rate: 0.01, burst: 1) == .allowed)
        let wait = await rates.take("dave", rate: 0.01, burst: 1)
        #expect((90...100).contains { wait == .limited(retryAfter: $0) }, "\(wait)")
    }
}
