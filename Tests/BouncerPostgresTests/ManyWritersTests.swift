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

    /// The race itself, made certain: another instance's transaction has filed bob's flag and not
    /// committed yet when this one files it too.
    @Test func aFlagFiledWhileAnotherInstanceCommitsTheSameIsKeptOnce() async throws {
        let database = try PostgresTestDatabase()
        let store = try PostgresStore(url: database.url, migrations: try Migration.load(directory: Self.migrations))
        defer { store.close() }
        try await SharedRepositoryTests.addMessage(store, id: "m0", author: "alice")
        let other = try PostgresConnection(url: database.url)
        try other.executeScript("BEGIN")
        try other.execute("""
            INSERT INTO flags (id, message_id, channel_id, reporter_id, reason, created_at, author_id)
            VALUES ('other', 'm0', 'messaging:room', 'bob', 'spam', '2026-12-01T00:00:00.000Z', 'alice')
            """, [])
        let filing = Task {
            try await store.fileFlag(messageID: "m0", reporter: Viewer(userID: "bob", role: .user), reason: "spam", details: nil,
                                     custom: nil, id: "this", now: Timestamp.now(), hideThreshold: 0)
        }
        try await Task.sleep(for: .milliseconds(300))
        try other.executeScript("COMMIT")
        guard case .existing(let kept) = try await filing.value else {
            Issue.record("the filing answers with the flag the other instance committed")
            return
        }
        #expect(kept.id == "other")
        #expect(try other.fetchValue("SELECT count(*) FROM flags WHERE message_id = 'm0' AND state = 'open'", as: Int.self) == 1)
    }

    /// Two filings on one message through two instances at once: the later one counts the other's
    /// flag, so the message is hidden at the threshold. (The review queue's upsert, which every
    /// filing's trigger makes on the message's row, makes the second filing wait for the first.)
    @Test func theHideThresholdCountsAFlagFiledAtOnceThroughAnotherInstance() async throws {
        let database = try PostgresTestDatabase()
        let store = try PostgresStore(url: database.url, migrations: try Migration.load(directory: Self.migrations))
        defer { store.close() }
        try await SharedRepositoryTests.addMessage(store, id: "m0", author: "alice")
        // Another instance's filing of carol's flag is under way: inserted, not yet committed.
        let other = try PostgresConnection(url: database.url)
        try other.executeScript("BEGIN")
        try other.execute("""
            INSERT INTO flags (id, message_id, channel_id, reporter_id, reason, created_at, author_id)
            VALUES ('carols', 'm0', 'messaging:room', 'carol', 'spam', '2026-12-01T00:00:00.000Z', 'alice')
            """, [])
        let filing = Task {
            try await store.fileFlag(messageID: "m0", reporter: Viewer(userID: "dave", role: .user), reason: "spam", details: nil,
                                     custom: nil, id: "daves", now: Timestamp.now(), hideThreshold: 2)
        }
        try await Task.sleep(for: .milliseconds(300))
        try other.executeScript("COMMIT")
        guard case .created = try await filing.value else {
            Issue.record("dave's flag is filed")
            return
        }
        #expect(try await store.message(id: "m0")?.hidden == true, "two users flagged it: hidden")
    }
}
