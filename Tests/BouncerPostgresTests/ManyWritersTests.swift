import BouncerDomain
import BouncerStore
import Foundation
import Testing
import TestSupport
@testable import BouncerPostgres

/// Several instances of the service writing to one database at once: what must hold across them
/// is held by the database (constraints, row locks), not by anything in one process.
@Suite struct ManyWritersTests {
    static let migrations = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("migrations/postgres")

    @Test func aReporterFlaggingThroughTwoInstancesAtOnceFilesOneFlag() async throws {
        let database = try PostgresTestDatabase()
        let migrations = try Migration.load(directory: Self.migrations)
        let instances = [try PostgresStore(url: database.url, migrations: migrations), try PostgresStore(url: database.url, migrations: migrations)]
        defer { for instance in instances { instance.close() } }
        for index in 0..<10 {
            try await SharedRepositoryTests.addMessage(instances[0], id: "m\(index)", author: "alice")
        }
        // Ten messages, each flagged twenty times at once by bob, through both instances in turn.
        let outcomes = try await withThrowingTaskGroup(of: (String, FlagOutcome).self) { group in
            for index in 0..<200 {
                let store = instances[index % 2]
                let message = "m\(index % 10)"
                group.addTask {
                    (message, try await store.fileFlag(messageID: message, reporter: Viewer(userID: "bob", role: .user), reason: "spam",
                                                       details: nil, custom: nil, id: TimeOrderedID.make(), now: Timestamp.now(),
                                                       hideThreshold: 0))
                }
            }
            return try await group.reduce(into: [(String, FlagOutcome)]()) { $0.append($1) }
        }
        for index in 0..<10 {
            let ids = Set(outcomes.filter { $0.0 == "m\(index)" }.compactMap { outcome -> String? in
                switch outcome.1 {
                case .created(let flag), .existing(let flag): flag.id
                default: nil
                }
            })
            #expect(ids.count == 1, "every filing of bob's flag on m\(index) answers with the one flag kept")
        }
        #expect(try await instances[1].flags(FlagQuery(state: .open, limit: 100)).count == 10)
        #expect(try await instances[0].openFlagCount() == 10, "the review queue counts one flag a message")
    }

    /// Files `filer`'s flag on a message through `store` while another instance's filing of
    /// `otherReporter`'s flag (id `other`) is inserted and not yet committed, then commits that
    /// one: the race of two instances, made certain. Returns the filing's outcome, the store, and
    /// the database (dropped once released).
    static func fileDuringAnotherFiling(by filer: String, otherReporter: String, hideThreshold: Int)
        async throws -> (outcome: FlagOutcome, store: PostgresStore, database: PostgresTestDatabase) {
        let database = try PostgresTestDatabase()
        let store = try PostgresStore(url: database.url, migrations: try Migration.load(directory: Self.migrations))
        try await SharedRepositoryTests.addMessage(store, id: "m0", author: "alice")
        let other = try PostgresConnection(url: database.url)
        try other.executeScript("BEGIN")
        try other.execute("""
            INSERT INTO flags (id, message_id, channel_id, reporter_id, reason, created_at, author_id)
            VALUES ('other', 'm0', 'messaging:room', ?, 'spam', '2026-12-01T00:00:00.000Z', 'alice')
            """, [.text(otherReporter)])
        let filing = Task {
            try await store.fileFlag(messageID: "m0", reporter: Viewer(userID: filer, role: .user), reason: "spam", details: nil,
                                     custom: nil, id: "this", now: Timestamp.now(), hideThreshold: hideThreshold)
        }
        // The filing waits for the other's row (its insert conflicts with it) before that commits.
        let watcher = try PostgresConnection(url: database.url)
        let waiting = ContinuousClock.now
        while try watcher.fetchAll("""
            SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
            """, []).isEmpty {
            guard ContinuousClock.now - waiting < .seconds(30) else {
                Issue.record("the filing never waited for the other instance's flag")
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        try other.executeScript("COMMIT")
        return (try await filing.value, store, database)
    }

    /// Bob's flag, filed through two instances at once, is kept once.
    @Test func aFlagFiledWhileAnotherInstanceCommitsTheSameIsKeptOnce() async throws {
        let (outcome, store, database) = try await Self.fileDuringAnotherFiling(by: "bob", otherReporter: "bob", hideThreshold: 0)
        defer { withExtendedLifetime(database) { store.close() } }
        guard case .existing(let kept) = outcome else {
            Issue.record("the filing answers with the flag the other instance committed, not \(outcome)")
            return
        }
        #expect(kept.id == "other")
        #expect(try await store.flags(FlagQuery(state: .open)).count == 1)
    }

    /// Two users' flags filed through two instances at once: the later filing counts the other's,
    /// so the message is hidden at the threshold. (The review queue's upsert, which every filing's
    /// trigger makes on the message's row, makes the second filing wait for the first.)
    @Test func theHideThresholdCountsAFlagFiledAtOnceThroughAnotherInstance() async throws {
        let (outcome, store, database) = try await Self.fileDuringAnotherFiling(by: "dave", otherReporter: "carol", hideThreshold: 2)
        defer { withExtendedLifetime(database) { store.close() } }
        guard case .created = outcome else {
            Issue.record("dave's flag is filed, not \(outcome)")
            return
        }
        #expect(try await store.message(id: "m0")?.hidden == true, "two users flagged it: hidden")
    }
}
