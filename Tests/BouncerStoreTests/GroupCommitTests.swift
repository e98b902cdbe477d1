import Foundation
import Locking
import Testing
import TestSupport
@testable import BouncerSQLite
import BouncerDomain
@testable import BouncerStore

@Suite struct GroupCommitTests {
    static let schema = [Migration(version: 1, name: "items", sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL UNIQUE) STRICT;")]

    @Test func concurrentWritersAreAllAcknowledgedGroupedAndDurable() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite3")
        let batches = Locked<[Int]>([])
        let store = try SQLiteStore(path: path, migrations: Self.schema) { report in
            batches.withLock { $0.append(report.size) }
        }
        let writers = 300
        let ids = try await withThrowingTaskGroup(of: Int64.self) { group in
            for index in 0..<writers {
                group.addTask {
                    try await store.writer.write { database in
                        try database.execute("INSERT INTO items (label) VALUES (?)", [.text("item-\(index)")])
                        return database.lastInsertRowID
                    }
                }
            }
            return try await group.reduce(into: [Int64]()) { $0.append($1) }
        }
        #expect(Set(ids).count == writers, "every write got its own row id back")
        // A group's report comes after its writers are resumed: wait for the last one.
        #expect(try await waitUntil { batches.withLock { $0.reduce(0, +) } >= writers })
        let sizes = batches.withLock { $0 }
        #expect(sizes.reduce(0, +) == writers)
        #expect(sizes.count < writers, "writes were grouped into fewer transactions than writes: \(sizes)")
        store.close()

        // Reopen as a restart would: everything acknowledged is there.
        let reopened = try SQLiteDatabase(path: path, mode: .readOnly)
        #expect(try reopened.fetchValue("SELECT count(*) FROM items", as: Int.self) == writers)
        let labels = Set(try reopened.fetchAll("SELECT label FROM items").compactMap { try $0.decodeIfPresent("label", as: String.self) })
        #expect(labels == Set((0..<writers).map { "item-\($0)" }))
    }

    @Test func aFailingWriteDoesNotUndoTheOthersInItsGroup() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path("store.sqlite3"), migrations: Self.schema)
        defer { store.close() }
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<50 {
                group.addTask {
                    do {
                        // Every tenth write collides with a label another write also inserts.
                        let label = index % 10 == 0 ? "duplicate" : "unique-\(index)"
                        try await store.writer.write { database in
                            try database.execute("INSERT INTO items (label) VALUES (?)", [.text(label)])
                            try database.execute("INSERT INTO items (label) VALUES (?)", [.text(label + "-second")])
                        }
                        return true
                    } catch {
                        return false
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 46, "one of the five colliding writes succeeds")
        let count = try await store.readers.read { try $0.fetchValue("SELECT count(*) FROM items", as: Int.self) }
        // Each successful write inserted two rows; each failed one left none (its savepoint rolled back).
        #expect(count == 92)
    }

    @Test func oneStatementWritesNeedNoSavepointToFailAlone() async throws {
        let directory = try TemporaryDirectory()
        let batches = Locked<[Int]>([])
        let store = try SQLiteStore(path: directory.path("store.sqlite3"), migrations: Self.schema) { report in
            batches.withLock { $0.append(report.size) }
        }
        defer { store.close() }
        let outcomes = try await Self.writeHeldTogether(store, (0..<50).map { index in
            // Every tenth write collides with a label another write also inserts.
            let label = index % 10 == 0 ? "duplicate" : "unique-\(index)"
            return (true, { database in try database.execute("INSERT INTO items (label) VALUES (?)", [.text(label)]) })
        })
        #expect(outcomes.filter { $0 == nil }.count == 46, "one of the five colliding writes succeeds")
        let failures = outcomes.compactMap { $0 as? SQLiteError }
        #expect(failures.count == 4 && failures.allSatisfy(\.isUniqueConstraintViolation), "\(failures)")
        // A group's report comes after its writers are resumed: wait for it.
        #expect(try await waitUntil { batches.withLock { $0.contains(50) } }, "the 50 writes made one group")
        let labels = try await store.readers.read { try $0.fetchAll("SELECT label FROM items").compactMap { try $0.decodeIfPresent("label", as: String.self) } }
        #expect(labels.count == 46 && Set(labels).count == 46)
    }

    @Test func aWriteThatEndsItsGroupsTransactionFailsTheGroupAndNothingAfterItRuns() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path("store.sqlite3"), migrations: Self.schema)
        defer { store.close() }
        // SQLite rolls a whole transaction back on some errors (a full disk, an I/O error); a
        // ROLLBACK inside a write does the same thing on purpose.
        let insert: (String) -> @Sendable (SQLiteDatabase) throws -> Void = { label in
            { database in try database.execute("INSERT INTO items (label) VALUES (?)", [.text(label)]) }
        }
        let rollBack: @Sendable (SQLiteDatabase) throws -> Void = { database in try database.execute("ROLLBACK") }
        // The rollback in the middle of a group, and as its last write.
        for writes in [[(false, insert("before")), (true, insert("before, one statement")), (false, rollBack),
                        (false, insert("after")), (true, insert("after, one statement"))],
                       [(true, insert("before")), (false, rollBack)]] {
            let outcomes = try await Self.writeHeldTogether(store, writes)
            for outcome in outcomes {
                #expect((outcome as? SQLiteError)?.resultCode == SQLiteError.groupRolledBack.resultCode, "\(String(describing: outcome))")
            }
            #expect(try await store.readers.read { try $0.fetchValue("SELECT count(*) FROM items", as: Int.self) } == 0,
                    "no write of the failed group was kept, not even those after the rollback")
        }
        // The writer goes on with the next group.
        try await store.writer.write { database in try database.execute("INSERT INTO items (label) VALUES ('next')") }
        #expect(try await store.readers.read { try $0.fetchValue("SELECT count(*) FROM items", as: Int.self) } == 1)
    }

    /// Queues `writes` while the writer is held inside another group, so that they all make the
    /// next group; returns each write's error, or nil for a write that was committed.
    private static func writeHeldTogether(_ store: SQLiteStore,
                                          _ writes: [(oneStatement: Bool, work: @Sendable (SQLiteDatabase) throws -> Void)])
        async throws -> [(any Error)?] {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        store.writer.write({ _ in
            started.signal()
            release.wait()
        }, completion: { _ in })
        started.wait()
        let outcomes = Locked<[Int: (any Error)?]>([:])
        let finished = DispatchGroup()
        for (index, write) in writes.enumerated() {
            finished.enter()
            store.writer.write(oneStatement: write.oneStatement, write.work) { result in
                let error: (any Error)? = if case .failure(let error) = result { error } else { nil }
                outcomes.withLock { $0[index] = error }
                finished.leave()
            }
        }
        release.signal()
        await withCheckedContinuation { continuation in
            finished.notify(queue: .global()) { continuation.resume() }
        }
        return outcomes.withLock { all in writes.indices.map { all[$0] ?? nil } }
    }

    @Test func readersSeeCommittedWritesAndCannotWrite() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path("store.sqlite3"), migrations: Self.schema)
        defer { store.close() }
        try await store.writer.write { try $0.execute("INSERT INTO items (label) VALUES ('seen')") }
        let label = try await store.readers.read { try $0.fetchValue("SELECT label FROM items", as: String.self) }
        #expect(label == "seen")
        await #expect(throws: SQLiteError.self) {
            try await store.readers.read { try $0.execute("INSERT INTO items (label) VALUES ('no')") }
        }
    }

    @Test func writesAfterCloseAreRefused() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path("store.sqlite3"), migrations: Self.schema)
        store.close()
        await #expect(throws: StoreError.self) {
            try await store.writer.write { try $0.execute("INSERT INTO items (label) VALUES ('late')") }
        }
    }

    @Test func readinessFollowsTheSchemaVersion() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path("store.sqlite3"), migrations: Self.schema)
        defer { store.close() }
        try await store.checkReady()
    }
}

@Suite struct AuditLogTests {
    @Test func theAuditLogIsAppendOnly() async throws {
        let directory = try TemporaryDirectory()
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let store = try SQLiteStore(path: directory.path("store.sqlite3"),
                                    migrations: try Migration.load(directory: repository.appendingPathComponent("migrations")))
        defer { store.close() }
        try await store.record(AuditEntry(id: "a1", actorID: "mod", action: "user.ban", targetType: "user", targetID: "bob",
                                          createdAt: Timestamp.now()))
        await #expect(throws: SQLiteError.self) {
            try await store.writer.write { try $0.execute("UPDATE audit_log SET actor_id = 'someone else'") }
        }
        await #expect(throws: SQLiteError.self) {
            try await store.writer.write { try $0.execute("DELETE FROM audit_log") }
        }
        #expect(try await store.auditEntries(AuditQuery()).map(\.actorID) == ["mod"])
    }
}
