import BouncerDomain
import BouncerStore
import Foundation
import Testing
import TestSupport
@testable import BouncerPostgres

/// Webhook deliveries in the store: every event after a webhook's creation that it takes becomes
/// one delivery, and instances sharing a database take each due delivery one at a time.
@Suite struct WebhookRepositoryTests {
    static func webhook(_ id: String, types: [String]) -> StoredWebhook {
        StoredWebhook(id: id, url: "https://example.com/\(id)", types: types, description: nil, secret: "whsec_AAAA", enabled: true,
                      disabledReason: nil, createdAt: "2026-12-01T00:00:00.000Z", updatedAt: "2026-12-01T00:00:00.000Z")
    }

    static func append<S: SQLStore>(_ store: S, _ types: [String]) async throws {
        try await store.write { connection in
            try EventLog.append(types.map { EventLogTests.event($0, #"{"n":1}"#) }, connection)
        }
    }

    static func fanOutAndClaim<S: SQLStore>(_ store: S) async throws {
        try await append(store, ["user.banned"])  // before the webhooks: for neither
        try await store.createWebhook(webhook("all", types: ["*"]))
        try await store.createWebhook(webhook("bans", types: ["user.banned"]))
        try await append(store, ["rule.changed", "user.banned", "config.changed"])
        let now = Timestamp.now()
        #expect(try await store.fanOut(webhookID: "all", limit: 2, now: now) == 2, "a page at a time")
        #expect(try await store.fanOut(webhookID: "all", limit: 500, now: now) == 1)
        #expect(try await store.fanOut(webhookID: "all", limit: 500, now: now) == 0, "nothing new: nothing done")
        #expect(try await store.fanOut(webhookID: "bans", limit: 500, now: now) == 3)
        let all = try await store.deliveries(webhookID: "all", state: nil, before: nil, limit: 10)
        #expect(all.map(\.eventType) == ["config.changed", "user.banned", "rule.changed"], "newest first")
        #expect(all.allSatisfy { $0.state == .pending && $0.attempts == 0 && $0.payload.contains(#""type":"\#($0.eventType)""#) })
        #expect(try await store.deliveries(webhookID: "bans", state: nil, before: nil, limit: 10).map(\.messageID) == ["3"])

        // Taken once until the claim runs out; an attempt's outcome is recorded.
        let later = Timestamp.format(Date().addingTimeInterval(60))
        let claimed = try await store.claimDeliveries(webhookID: "all", limit: 2, now: now, until: later)
        #expect(claimed.count == 2 && claimed.allSatisfy { $0.attempts == 1 })
        #expect(try await store.claimDeliveries(webhookID: "all", limit: 5, now: now, until: later).count == 1, "the third only")
        #expect(try await store.claimDeliveries(webhookID: "all", limit: 5, now: later + "1", until: later + "2").count == 3,
                "taken again once the claims ran out (their dispatcher died)")
        try await store.recordDeliveries([
            DeliveryResult(deliveryID: claimed[0].id, webhookID: "all", state: .delivered, nextAttemptAt: now, status: 204, error: nil),
            DeliveryResult(deliveryID: claimed[1].id, webhookID: "all", state: .failed, nextAttemptAt: now, status: 410, error: "HTTP 410",
                           disableWebhook: "410 Gone"),
        ], now: now)
        #expect(try await store.deliveries(webhookID: "all", state: .delivered, before: nil, limit: 10).map(\.lastStatus) == [204])
        let disabled = try await store.webhook(id: "all")
        #expect(disabled?.enabled == false && disabled?.disabledReason == "410 Gone")
        #expect(try await store.fanOut(webhookID: "all", limit: 500, now: now) == 0, "a disabled webhook gets no deliveries")
        #expect(try await store.pruneDeliveries(before: later, limit: 100) == 2, "finished deliveries are pruned, pending ones kept")
        #expect(try await store.deleteWebhook(id: "bans"))
        #expect(try await store.deliveries(webhookID: "bans", state: nil, before: nil, limit: 10).isEmpty)
    }

    @Test func eventsOfItsTypesAfterAWebhookIsMadeBecomeDeliveriesTakenOnceEach() async throws {
        try await SharedRepositoryTests.onBothStores { store in try await Self.fanOutAndClaim(store) }
    }

    /// Three instances fan out and take deliveries at once: every delivery is made once and
    /// taken by one of them.
    @Test func instancesSharingADatabaseTakeEachDeliveryOnce() async throws {
        let database = try PostgresTestDatabase()
        let migrations = try Migration.load(directory: ManyWritersTests.migrations)
        let instances = try (0..<3).map { _ in try PostgresStore(url: database.url, migrations: migrations) }
        defer { for instance in instances { instance.close() } }
        try await instances[0].createWebhook(Self.webhook("w", types: ["*"]))
        try await Self.append(instances[0], Array(repeating: "user.banned", count: 300))
        let until = Timestamp.format(Date().addingTimeInterval(600))
        let taken = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for instance in instances {
                group.addTask {
                    var ids: [Int64] = []
                    for _ in 0..<40 {
                        _ = try await instance.fanOut(webhookID: "w", limit: 50, now: Timestamp.now())
                        ids += try await instance.claimDeliveries(webhookID: "w", limit: 10, now: Timestamp.now(), until: until).map(\.id)
                    }
                    return ids
                }
            }
            return try await group.reduce(into: [Int64]()) { $0 += $1 }
        }
        let made = try await instances[1].deliveries(webhookID: "w", state: nil, before: nil, limit: 1000)
        #expect(made.count == 300 && Set(made.map(\.messageID)).count == 300, "one delivery an event")
        #expect(taken.count == Set(taken).count, "none taken twice")
        #expect(Set(taken) == Set(made.map(\.id)))
    }
}
