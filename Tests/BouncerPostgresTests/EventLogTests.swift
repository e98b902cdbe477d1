import BouncerDomain
import BouncerStore
import Foundation
import Testing
import TestSupport
@testable import BouncerPostgres

/// The event log on both stores: events are written with their change or not at all, ids follow
/// commit order (also across instances), and old events are pruned.
@Suite struct EventLogTests {
    static func event(_ type: String, _ data: String, at time: String = Timestamp.now()) -> NewEvent {
        NewEvent(type: type, data: data, createdAt: time)
    }

    @Test func eventsAreWrittenWithTheirChangeOnly() async throws {
        try await SharedRepositoryTests.onBothStores { store in
            let rule = StoredRule(RuleDefinition(id: "r1", name: "r1", kind: .word, pattern: "pear", action: .bounce),
                                  createdAt: "t", updatedAt: "t", createdBy: "root")
            _ = try await store.insertRules([rule], events: [Self.event("rule.changed", #"{"change":"created"}"#)])
            // A change that does not happen writes no event: an update of no rule ...
            var missing = rule
            missing.definition.id = "nope"
            #expect(try await store.updateRule(missing, events: [Self.event("rule.changed", #"{"change":"updated"}"#)]) == nil)
            // ... and a change that fails is rolled back with its event.
            await #expect(throws: (any Error).self) {
                _ = try await store.insertRules([rule], events: [Self.event("rule.changed", #"{"change":"again"}"#)])
            }
            try await store.saveSettings(#"{"a":1}"#, by: "root", events: [Self.event("config.changed", #"{"a":1}"#)])
            _ = try await store.ban(StoredBan(userID: "troll", reason: nil, shadow: false, expiresAt: nil, createdBy: "mod", createdAt: "t"),
                                    audit: SharedRepositoryTests.audit("user.ban", "troll"),
                                    events: [Self.event("user.banned", #"{"user_id":"troll"}"#)])
            let all = try await store.events(after: 0, types: nil, limit: 10)
            #expect(all.map(\.type) == ["rule.changed", "config.changed", "user.banned"])
            #expect(all.map(\.id) == [1, 2, 3])
            #expect(all[0].data == #"{"change":"created"}"#)
            #expect(try await store.events(after: 1, types: ["user.banned"], limit: 10).map(\.id) == [3])
            #expect(try await store.events(after: 0, types: nil, limit: 2).map(\.id) == [1, 2])
            #expect(try await store.events(after: 3, types: nil, limit: 10).isEmpty)
        }
    }

    @Test func oldEventsArePrunedOldestFirst() async throws {
        try await SharedRepositoryTests.onBothStores { store in
            for day in 1...5 {
                try await store.saveSettings("{}", by: "root", events: [Self.event("config.changed", "{}", at: "2026-11-0\(day)T00:00:00.000Z")])
            }
            #expect(try await store.pruneEvents(before: "2026-11-04T00:00:00.000Z", limit: 2) == 2)
            #expect(try await store.pruneEvents(before: "2026-11-04T00:00:00.000Z", limit: 2) == 1)
            #expect(try await store.events(after: 0, types: nil, limit: 10).map(\.id) == [4, 5])
        }
    }

    /// Two instances append events at once while a reader follows the log with `after`: had an
    /// event become visible after one with a larger id, the reader would have passed it by.
    @Test func aReaderFollowingTheLogMissesNothingWhileTwoInstancesWrite() async throws {
        let database = try PostgresTestDatabase()
        let migrations = try Migration.load(directory: ManyWritersTests.migrations)
        let instances = try (0..<2).map { _ in try PostgresStore(url: database.url, migrations: migrations) }
        defer { for instance in instances { instance.close() } }
        let total = 400
        let seen = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for index in 0..<total {
                group.addTask {
                    // Events alone: no other row of the change serializes these transactions.
                    try await instances[index % 2].write { try EventLog.append([Self.event("config.changed", #"{"n":\#(index)}"#)], $0) }
                    return []
                }
            }
            group.addTask {
                var after: Int64 = 0
                var ids: [Int64] = []
                while ids.count < total {
                    let page = try await instances[1].events(after: after, types: nil, limit: 50)
                    ids += page.map(\.id)
                    after = page.last?.id ?? after
                    if page.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
                }
                return ids
            }
            return try await group.reduce(into: [Int64]()) { $0 += $1 }
        }
        #expect(seen == Array(1...Int64(total)), "every event seen once, in id order")
    }
}
