import BouncerDomain
import BouncerStore
import Foundation
import Testing
import TestSupport
@testable import BouncerPostgres

/// Readers that catch up as chat clients do, while several instances write at once: a channel
/// read newest first until the first message the reader already has, and the event log followed
/// by id. A sequence or id handed out before a slower transaction committed would let a reader
/// step over that transaction's rows for good; each must see every acknowledged one.
@Suite struct CommitOrderTests {
    static let instanceCount = 3
    static let sendsPerInstance = 300

    final class Acknowledged: @unchecked Sendable {
        private let lock = NSLock()
        private var ids: [String] = []
        func add(_ id: String) { lock.withLock { ids.append(id) } }
        var all: [String] { lock.withLock { ids } }
    }

    final class Running: @unchecked Sendable {
        private let lock = NSLock()
        private var running = true
        var value: Bool { lock.withLock { running } }
        func stop() { lock.withLock { running = false } }
    }

    /// Catches up with the channel newest first: pages back until it meets a message it has.
    static func catchUp(_ store: PostgresStore, known: inout Set<String>) async throws {
        var before: Int64?
        while true {
            let page = try await store.channelMessages("messaging:room", before: before, limit: 50, viewer: Viewer(userID: "reader", role: .moderator))
            for message in page {
                if known.contains(message.id) { return }
                known.insert(message.id)
            }
            guard page.count == 50, let oldest = page.last else { return }
            before = oldest.sequence
        }
    }

    @Test func aChannelReadNewestFirstMissesNoMessageWhileInstancesWrite() async throws {
        let database = try PostgresTestDatabase()
        let migrations = try Migration.load(directory: ManyWritersTests.migrations)
        let instances = try (0..<Self.instanceCount).map { _ in try PostgresStore(url: database.url, migrations: migrations) }
        defer { for instance in instances { instance.close() } }
        let acknowledged = Acknowledged()
        let writing = Running()
        let seen = try await withThrowingTaskGroup(of: Set<String>.self) { group in
            group.addTask {
                try await withThrowingTaskGroup(of: Void.self) { senders in
                    for (number, instance) in instances.enumerated() {
                        // Several senders an instance, so that its groups hold several messages.
                        for sender in 0..<8 {
                            senders.addTask {
                                for index in stride(from: sender, to: Self.sendsPerInstance, by: 8) {
                                    let id = "i\(number)-\(index)"
                                    // Some with an event, as bounced messages have, some without.
                                    let events = index % 5 == 0 ? [NewEvent(type: "message.bounced", data: "{}", createdAt: Timestamp.now())] : []
                                    let outcome = try await withCheckedThrowingContinuation { continuation in
                                        instance.send(SharedRepositoryTests.message(id, by: "u\(number)"), flags: [], events: events,
                                                      sender: Viewer(userID: "u\(number)", role: .user)) { continuation.resume(with: $0) }
                                    }
                                    if case .created = outcome { acknowledged.add(id) }
                                }
                            }
                        }
                    }
                    try await senders.waitForAll()
                }
                writing.stop()
                return []
            }
            group.addTask {
                var known = Set<String>()
                while writing.value {
                    try await Self.catchUp(instances[0], known: &known)
                }
                try await Self.catchUp(instances[0], known: &known)
                return known
            }
            // The event log followed by id, as the event stream and webhooks follow it: every
            // id is one more than the last seen, or an id was stepped over.
            group.addTask {
                var after: Int64 = 0
                var followed = true
                while writing.value || followed {
                    followed = writing.value
                    let page = try await instances[1].events(after: after, types: nil, limit: 100)
                    for event in page {
                        if event.id != after + 1 { Issue.record("event \(event.id) came after \(after)") }
                        after = event.id
                    }
                    if !page.isEmpty { followed = true }
                }
                return ["events:\(after)"]
            }
            return try await group.reduce(into: Set<String>()) { $0.formUnion($1) }
        }
        let events = Self.instanceCount * Self.sendsPerInstance / 5
        #expect(seen.contains("events:\(events)"), "the follower read all \(events) events: \(seen.filter { $0.hasPrefix("events:") })")
        let all = acknowledged.all
        #expect(all.count == Self.instanceCount * Self.sendsPerInstance)
        let missed = all.filter { !seen.contains($0) }
        #expect(missed.isEmpty, "\(missed.count) acknowledged messages never seen by the reader, e.g. \(missed.prefix(5))")
    }
}
