import BouncerDomain
import Foundation
import Locking
import Testing
import TestSupport
@testable import BouncerSQLite
@testable import BouncerStore

/// Channel pages over `channel_messages`, whose copy of the newest messages lags by up to a
/// batch: every page must show each message once, in order, copied or not.
@Suite struct ChannelIndexTests {
    static let migrations: [Migration] = {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? Migration.load(directory: repository.appendingPathComponent("migrations"))) ?? []
    }()
    static let moderator = Viewer(userID: "mod", seesEverything: true)

    static func openStore(_ directory: TemporaryDirectory, batchSize: Int) throws -> SQLiteStore {
        var configuration = StoreConfiguration()
        configuration.channelIndexBatchSize = batchSize
        return try SQLiteStore(path: directory.path("store.sqlite3"), configuration: configuration, migrations: migrations)
    }

    static func message(_ id: String, channel: String, user: String = "alice", state: MessageState = .delivered) -> StoredMessage {
        StoredMessage(id: id, channelID: channel, userID: user, text: "text of \(id)", originalText: nil, state: state, parentID: nil,
                      custom: nil, moderation: nil, bounceAction: state == .bounced ? .bounce : nil, flagged: false, edited: false,
                      createdAt: "2026-11-30T00:00:00.000Z", updatedAt: "2026-11-30T00:00:00.000Z")
    }

    @discardableResult
    static func send(_ message: StoredMessage, to store: SQLiteStore) async throws -> Int64 {
        let outcome = try await withCheckedThrowingContinuation { continuation in
            store.send(message, flags: [], sender: Viewer(userID: message.userID, seesEverything: false)) { continuation.resume(with: $0) }
        }
        guard case .created(let stored) = outcome else { throw StoreError.closed }
        return stored.sequence
    }

    /// Every page of `channel`, newest first, `limit` at a time, following the cursor.
    static func allPages(of channel: String, in store: SQLiteStore, viewer: Viewer = moderator, limit: Int = 7) async throws -> [String] {
        var ids: [String] = []
        var before: Int64?
        while true {
            let page = try await store.channelMessages(channel, before: before, limit: limit, viewer: viewer)
            #expect(page.map(\.sequence) == page.map(\.sequence).sorted(by: >), "a page is newest first")
            ids += page.map(\.id)
            guard page.count == limit, let last = page.last else { return ids }
            before = last.sequence
        }
    }

    static func progress(_ store: SQLiteStore) async throws -> (indexedThrough: Int64, newest: Int64) {
        try await store.readers.read { database in
            (try database.fetchValue("SELECT indexed_through FROM channel_messages_progress", as: Int64.self) ?? -1,
             try database.fetchValue("SELECT coalesce(max(sequence), 0) FROM messages", as: Int64.self) ?? -1)
        }
    }

    @Test func pagesShowEveryMessageOnceAsTheCopyCatchesUp() async throws {
        let directory = try TemporaryDirectory()
        let store = try Self.openStore(directory, batchSize: 10)
        defer { store.close() }
        var sent: [String: [String]] = [:]
        var sawBothParts = false
        for index in 0..<95 {
            let channel = "messaging:c\(index % 3)"
            try await Self.send(Self.message("m\(index)", channel: channel), to: store)
            sent[channel, default: []].insert("m\(index)", at: 0)
            // Check after every send: the split between the copied and the newest rows moves.
            let (indexedThrough, newest) = try await Self.progress(store)
            #expect(newest - indexedThrough < 10 + 1, "the newest rows stay within a batch")
            if indexedThrough > 0 && indexedThrough < newest { sawBothParts = true }
            for channel in sent.keys.sorted() {
                #expect(try await Self.allPages(of: channel, in: store) == sent[channel])
            }
        }
        #expect(sawBothParts)
        let copied = try await store.readers.read { try $0.fetchValue("SELECT count(*) FROM channel_messages", as: Int.self) }
        #expect(copied ?? 0 >= 90)
    }

    @Test func pagesAfterAMessageShowWhatFollowedItOnceInOrderAsTheCopyCatchesUp() async throws {
        let directory = try TemporaryDirectory()
        let store = try Self.openStore(directory, batchSize: 10)
        defer { store.close() }
        var sequences: [Int64] = []  // channel c0's, oldest first
        for index in 0..<65 {
            let channel = "messaging:c\(index % 2)"
            let sequence = try await Self.send(Self.message("m\(index)", channel: channel), to: store)
            if index % 2 == 0 { sequences.append(sequence) }
            // From every earlier message of c0, the next three: across the copied part, the part
            // not yet copied, and the line between them, which moves with every batch.
            for (position, start) in sequences.enumerated() where position % 3 == 0 || position >= sequences.count - 4 {
                let after = try await store.channelMessages("messaging:c0", after: start, limit: 3, viewer: Self.moderator)
                #expect(after.map(\.sequence) == Array(sequences[(position + 1)...].prefix(3)), "after \(start) with \(index + 1) sent")
            }
        }
    }

    @Test func bothPartsShowAViewerOnlyWhatTheyMaySee() async throws {
        let directory = try TemporaryDirectory()
        let store = try Self.openStore(directory, batchSize: 8)
        defer { store.close() }
        var visibleToBob: [String] = []
        var everything: [String] = []
        // Every fifth message is hidden (reported by enough users): bob sees it only if it is his.
        for index in 0..<30 {
            let (user, state): (String, MessageState) = [("alice", .delivered), ("alice", .bounced), ("bob", .bounced), ("alice", .removed),
                                                         ("bob", .delivered), ("alice", .delivered)][index % 6]
            try await Self.send(Self.message("m\(index)", channel: "messaging:room", user: user, state: state), to: store)
            let hidden = index % 5 == 0
            if hidden { try await store.writer.write { try $0.execute("UPDATE messages SET hidden = 1 WHERE id = ?", [.text("m\(index)")]) } }
            everything.insert("m\(index)", at: 0)
            if (state == .delivered && !hidden) || user == "bob" { visibleToBob.insert("m\(index)", at: 0) }
        }
        let (indexedThrough, newest) = try await Self.progress(store)
        #expect(indexedThrough > 0 && indexedThrough < newest, "some messages are copied and some are not")
        #expect(try await Self.allPages(of: "messaging:room", in: store, viewer: Viewer(userID: "bob", seesEverything: false), limit: 4)
                == visibleToBob)
        #expect(try await Self.allPages(of: "messaging:room", in: store, limit: 4) == everything)
    }

    /// SQLite gives a deleted newest message's sequence to the next message: that one must not
    /// fall between the copied part and the newest rows. Copied at once (batches of one) or
    /// found among the rows not copied yet (batches of five), it is listed.
    @Test(arguments: [1, 5])
    func aMessageThatTakesADeletedOnesSequenceIsListed(batchSize: Int) async throws {
        let directory = try TemporaryDirectory()
        let store = try Self.openStore(directory, batchSize: batchSize)
        defer { store.close() }
        for index in 0..<5 { try await Self.send(Self.message("m\(index)", channel: "messaging:a"), to: store) }
        #expect(try await Self.progress(store) == (5, 5))
        try await store.writer.write { try $0.execute("DELETE FROM messages WHERE id = 'm4'") }
        #expect(try await Self.progress(store) == (4, 4))
        let sequence = try await Self.send(Self.message("again", channel: "messaging:a"), to: store)
        #expect(sequence == 5)
        #expect(try await Self.progress(store) == (batchSize == 1 ? 5 : 4, 5))
        #expect(try await Self.allPages(of: "messaging:a", in: store) == ["again", "m3", "m2", "m1", "m0"])
    }

    /// Deleting a message that is not the newest, copied or not yet copied, takes it out of its
    /// channel and leaves the mark where it was.
    @Test func deletedMessagesLeaveTheirChannel() async throws {
        let directory = try TemporaryDirectory()
        let store = try Self.openStore(directory, batchSize: 5)
        defer { store.close() }
        for index in 0..<7 { try await Self.send(Self.message("m\(index)", channel: "messaging:a"), to: store) }
        #expect(try await Self.progress(store) == (5, 7))
        // m1 is copied, m5 is not (the delete is the third write since the last copy).
        try await store.writer.write { try $0.execute("DELETE FROM messages WHERE id IN ('m1', 'm5')") }
        #expect(try await Self.progress(store) == (5, 7))
        #expect(try await Self.allPages(of: "messaging:a", in: store, limit: 2) == ["m6", "m4", "m3", "m2", "m0"])
        let entries = try await store.readers.read { try $0.fetchValue("SELECT count(*) FROM channel_messages", as: Int.self) }
        #expect(entries == 4, "m0, m2, m3 and m4 are copied; m1's entry went with it")
    }

    /// A copy that fails is reported with its group, and does not fail the group's writes.
    @Test func aFailedCopyIsReportedAndTheSendsStillCommit() async throws {
        let directory = try TemporaryDirectory()
        var configuration = StoreConfiguration()
        configuration.channelIndexBatchSize = 1
        let errors = Locked<[String]>([])
        let store = try SQLiteStore(path: directory.path("store.sqlite3"), configuration: configuration, migrations: Self.migrations) { report in
            for failure in report.hookFailures { errors.withLock { $0.append("\(failure.hook): \(failure.error)") } }
        }
        defer { store.close() }
        try await Self.send(Self.message("m0", channel: "messaging:a"), to: store)
        #expect(errors.withLock { $0 }.isEmpty)
        // Breaks the copy: its table is gone.
        try await store.writer.write { database in
            try database.execute("DROP TRIGGER channel_messages_follow_deletes")
            try database.execute("DROP TABLE channel_messages")
        }
        let sequence = try await Self.send(Self.message("m1", channel: "messaging:a"), to: store)
        #expect(sequence == 2)
        let reported = errors.withLock { $0 }
        #expect(reported.count == 2, "the drop's group and the send's group each tried: \(reported)")
        #expect(reported.allSatisfy { $0.contains("channel_messages") })
        let stored = try await store.readers.read { try $0.fetchValue("SELECT count(*) FROM messages", as: Int.self) }
        #expect(stored == 2)
    }

    @Test func openingAStoreCopiesMessagesWrittenAroundTheWriter() async throws {
        let directory = try TemporaryDirectory()
        try Self.openStore(directory, batchSize: 1000).close()
        let database = try SQLiteDatabase(path: directory.path("store.sqlite3"))
        for index in 0..<20 {
            try database.execute("""
                INSERT INTO messages (id, channel_id, user_id, text, state, created_at, updated_at)
                VALUES (?, 'messaging:bulk', 'u', 'x', 'delivered', 't', 't')
                """, [.text("b\(index)")])
        }
        database.close()
        let store = try Self.openStore(directory, batchSize: 1000)
        defer { store.close() }
        #expect(try await Self.progress(store) == (20, 20))
        #expect(try await Self.allPages(of: "messaging:bulk", in: store, limit: 6) == (0..<20).reversed().map { "b\($0)" })
    }

    /// The copied part must come out of its table in order: sorted instead, a page of a large
    /// channel would read every message the channel has.
    @Test func aPageReadsTheCopiedPartInOrderWithoutSorting() async throws {
        let directory = try TemporaryDirectory()
        let store = try Self.openStore(directory, batchSize: 1)
        defer { store.close() }
        for visibleToViewer in [false, true] {
            let sql = ChannelIndex.pageSQL(columns: MessageSQL.columnList, visibleToViewer: visibleToViewer)
            let plan = try await store.readers.read { database in
                let arguments: [DatabaseValue] = [.text("c"), .integer(100), .integer(10)] + (visibleToViewer ? [.text("u")] : [])
                return try database.fetchAll("EXPLAIN QUERY PLAN " + sql, arguments)
                    .map { try $0.decodeIfPresent("detail", as: String.self) ?? "" }
            }
            #expect(plan.contains { $0.contains("MERGE") }, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
            #expect(plan.contains { $0.contains("SEARCH c USING PRIMARY KEY") }, "\(plan)")
            #expect(plan.contains { $0.contains("SEARCH messages USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") }, "\(plan)")
        }
    }

    /// A page deep in a large channel seeks to its cursor: the work it does does not grow with
    /// the number of messages between the cursor and the newest.
    @Test func aDeepPageReadsOnlyItsOwnRows() async throws {
        let directory = try TemporaryDirectory()
        try Self.openStore(directory, batchSize: 1000).close()
        let database = try SQLiteDatabase(path: directory.path("store.sqlite3"))
        try database.inTransaction { database in
            for index in 0..<4000 {
                try database.execute("""
                    INSERT INTO messages (id, channel_id, user_id, text, state, created_at, updated_at)
                    VALUES (?, 'messaging:big', 'u', 'x', 'delivered', 't', 't')
                    """, [.text("b\(index)")])
            }
        }
        try ChannelIndex.catchUp(database)
        let sql = ChannelIndex.pageSQL(columns: MessageSQL.columnList, visibleToViewer: false)
        func steps(before cursor: Int64) throws -> (ids: Int, steps: Int) {
            let statement = try database.cachedStatement(sql)
            try statement.bind([.text("messaging:big"), .integer(cursor), .integer(20)])
            let before = statement.virtualMachineSteps
            var rows = 0
            while try statement.step() { rows += 1 }
            return (rows, statement.virtualMachineSteps - before)
        }
        let top = try steps(before: 4001)
        let deep = try steps(before: 101)
        #expect(top.ids == 20 && deep.ids == 20)
        #expect(deep.steps < top.steps * 2, "the newest page took \(top.steps) steps, the one 3,900 messages down \(deep.steps)")
        database.close()
    }
}
