import Foundation
import Testing
import TestSupport
@testable import BouncerSQLite
@testable import BouncerStore

@Suite struct MigratorTests {
    static let first = Migration(version: 1, name: "people", sql: "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL);")
    static let second = Migration(version: 2, name: "pets", sql: """
        CREATE TABLE pets (id INTEGER PRIMARY KEY, owner INTEGER NOT NULL REFERENCES people(id));
        CREATE INDEX pets_owner ON pets (owner);
        """)

    @Test func freshStoreGetsEveryMigrationInOrder() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        let applied = try Migrator(migrations: [Self.first, Self.second]).migrate(database) { "2026-01-01T00:00:00.000Z" }
        #expect(applied.map(\.version) == [1, 2])
        let rows = try database.fetchAll("SELECT version, name, checksum FROM schema_migrations ORDER BY version")
        #expect(try rows.map { try $0.decode("name", as: String.self) } == ["people", "pets"])
        #expect(try rows[0].decodeIfPresent("checksum", as: String.self) == Self.first.checksum)
        #expect(Self.first.checksum.count == 64)
        #expect(try database.fetchValue("PRAGMA user_version", as: Int.self) == 2)
        #expect(try database.fetchValue("SELECT count(*) FROM sqlite_master WHERE name = 'pets_owner'", as: Int.self) == 1)
    }

    @Test func reRunningAppliesNothingAndLaterFilesApplyLater() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        try Migrator(migrations: [Self.first]).migrate(database)
        #expect(try Migrator(migrations: [Self.first]).migrate(database).isEmpty)
        let status = try Migrator(migrations: [Self.first, Self.second]).status(of: database)
        #expect(status.map(\.state) == [.applied, .pending])
        #expect(try Migrator(migrations: [Self.first, Self.second]).migrate(database).map(\.version) == [2])
    }

    @Test func aChangedAppliedFileIsRefused() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        try Migrator(migrations: [Self.first]).migrate(database)
        var edited = Self.first
        edited.sql += "\n-- a harmless-looking edit"
        let error = try #require(throws: MigrationError.self) {
            try Migrator(migrations: [edited, Self.second]).migrate(database)
        }
        #expect(error == .changedAfterApplied(version: 1, fileName: "0001_people.sql"))
        #expect(error.description.contains("changed after it was applied"))
        // Nothing after the refusal was applied.
        #expect(try database.fetchValue("SELECT count(*) FROM sqlite_master WHERE name = 'pets'", as: Int.self) == 0)
    }

    @Test func aStoreNewerThanTheBinaryIsRefused() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        try Migrator(migrations: [Self.first, Self.second]).migrate(database)
        let error = try #require(throws: MigrationError.self) {
            try Migrator(migrations: [Self.first]).migrate(database)
        }
        #expect(error == .storeIsNewer(version: 2, name: "pets"))
    }

    @Test func aFailingMigrationIsRolledBackWhole() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        let broken = Migration(version: 2, name: "broken", sql: "CREATE TABLE half (x INTEGER); INSERT INTO nowhere VALUES (1);")
        let error = try #require(throws: MigrationError.self) {
            try Migrator(migrations: [Self.first, broken]).migrate(database)
        }
        guard case .failed(let fileName, _) = error else {
            Issue.record("expected .failed, got \(error)")
            return
        }
        #expect(fileName == "0002_broken.sql")
        #expect(try database.fetchValue("SELECT count(*) FROM sqlite_master WHERE name = 'half'", as: Int.self) == 0)
        #expect(try database.fetchValue("SELECT count(*) FROM schema_migrations", as: Int.self) == 1)
    }

    @Test func aMigrationThatBreaksForeignKeysIsRolledBack() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        try database.execute("PRAGMA foreign_keys = ON")
        try Migrator(migrations: [Self.first, Self.second]).migrate(database)
        // With checks deferred the orphan would only surface at commit; the migrator's
        // foreign_key_check finds it first and names the file.
        let orphan = Migration(version: 3, name: "orphan", sql: "PRAGMA defer_foreign_keys = ON; INSERT INTO pets (owner) VALUES (99);")
        #expect(throws: MigrationError.self) {
            try Migrator(migrations: [Self.first, Self.second, orphan]).migrate(database)
        }
        #expect(try database.fetchValue("SELECT count(*) FROM pets", as: Int.self) == 0)
    }

    @Test func filesLoadInVersionOrderAndMisnamedFilesAreErrors() throws {
        let directory = try TemporaryDirectory()
        try directory.write("0002_second.sql", "SELECT 2;")
        try directory.write("0001_first.sql", "SELECT 1;")
        try directory.write("README.md", "not a migration")
        let migrations = try Migration.load(directory: directory.url)
        #expect(migrations.map(\.fileName) == ["0001_first.sql", "0002_second.sql"])

        try directory.write("3_bad.sql", "SELECT 3;")
        #expect(throws: MigrationError.badFileName("3_bad.sql")) { try Migration.load(directory: directory.url) }
        try FileManager.default.removeItem(atPath: directory.path("3_bad.sql"))
        try directory.write("0002_again.sql", "SELECT 2;")
        #expect(throws: MigrationError.duplicateVersion(2)) { try Migration.load(directory: directory.url) }
    }

    @Test func theShippedMigrationsApplyToAFreshStore() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let migrations = try Migration.load(directory: repository.appendingPathComponent("migrations"))
        #expect(!migrations.isEmpty)
        #expect(migrations.map(\.version) == Array(1...migrations.count), "migration versions have no gaps")
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        try database.execute("PRAGMA foreign_keys = ON")
        #expect(try Migrator(migrations: migrations).migrate(database).count == migrations.count)
    }
    /// 0007 rebuilds the messages table: every row must come through with its sequence (what
    /// orders a channel and its cursors), and the constraints must refuse what they refused.
    @Test func rebuildingMessagesKeepsRowsSequencesAndRules() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let migrations = try Migration.load(directory: repository.appendingPathComponent("migrations"))
        let directory = try TemporaryDirectory()
        // As the service's writer opens it: foreign keys enforced, so that dropping the old table
        // would cascade into the flags, revisions and review queue if the migrator let it.
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        try database.execute("PRAGMA foreign_keys = ON")
        try Migrator(migrations: migrations.filter { $0.version < 7 }).migrate(database)
        let insert = """
            INSERT INTO messages (id, channel_id, user_id, text, state, bounce_action, flagged, created_at, updated_at, hidden)
            VALUES (?, 'messaging:a', 'u', ?, ?, ?, ?, 't', 't', ?)
            """
        for (index, state) in ["delivered", "bounced", "removed", "shadowed", "deleted"].enumerated() {
            try database.execute(insert, [.text("m\(index)"), .text("text \(index)"), .text(state),
                                          state == "bounced" ? .text("bounce_flag") : .null, .integer(Int64(index % 2)), .integer(0)])
        }
        try database.execute("DELETE FROM messages WHERE id = 'm1'")  // a gap in the sequence
        try database.execute("INSERT INTO message_revisions (message_id, revision, text, state, created_at) VALUES ('m0', 1, 'old', 'delivered', 't')")
        try database.execute("""
            INSERT INTO flags (id, message_id, channel_id, reporter_id, reason, state, created_at, author_id)
            VALUES ('f1', 'm0', 'messaging:a', 'r', 'spam', 'open', 't', 'u')
            """)
        #expect(try database.fetchValue("SELECT count(*) FROM review_queue", as: Int.self) == 1)
        let before = try database.fetchAll("SELECT rowid, id, text, state, bounce_action, flagged FROM messages ORDER BY rowid")
            .map { "\(try $0.decodeIfPresent("rowid", as: Int.self) ?? -1) \(try $0.decodeIfPresent("id", as: String.self) ?? "") \(try $0.decodeIfPresent("text", as: String.self) ?? "") "
                + "\(try $0.decodeIfPresent("state", as: String.self) ?? "") \(try $0.decodeIfPresent("bounce_action", as: String.self) ?? "-") \(try $0.decodeIfPresent("flagged", as: Int.self) ?? -1)" }

        #expect(try Migrator(migrations: migrations.filter { $0.version <= 7 }).migrate(database).map(\.version) == [7])
        let after = try database.fetchAll("SELECT sequence AS rowid, id, text, state, bounce_action, flagged FROM messages ORDER BY rowid")
            .map { "\(try $0.decodeIfPresent("rowid", as: Int.self) ?? -1) \(try $0.decodeIfPresent("id", as: String.self) ?? "") \(try $0.decodeIfPresent("text", as: String.self) ?? "") "
                + "\(try $0.decodeIfPresent("state", as: String.self) ?? "") \(try $0.decodeIfPresent("bounce_action", as: String.self) ?? "-") \(try $0.decodeIfPresent("flagged", as: Int.self) ?? -1)" }
        #expect(after == before)
        #expect(before.count == 4)
        #expect(try database.fetchValue("SELECT count(*) FROM message_revisions", as: Int.self) == 1)
        #expect(try database.fetchValue("SELECT count(*) FROM flags", as: Int.self) == 1)
        #expect(try database.fetchValue("SELECT count(*) FROM review_queue", as: Int.self) == 1)
        #expect(try database.fetchValue("PRAGMA foreign_keys", as: Int.self) == 1, "enforced again after migrating")
        #expect(try database.fetchAll("PRAGMA foreign_key_check").isEmpty)
        #expect(try database.fetchValue("SELECT count(*) FROM sqlite_master WHERE name = 'messages_by_channel'", as: Int.self) == 1)
        #expect(try database.fetchValue("PRAGMA integrity_check", as: String.self) == "ok")

        // The same rules as before: a new row continues the sequence; bad values are refused.
        try database.execute(insert, [.text("m9"), .text("new"), .text("delivered"), .null, .integer(0), .integer(0)])
        #expect(database.lastInsertRowID == 6)  // after m4's 5
        for (state, bounceAction, flagged, hidden) in [("sent", "", 0, 0), ("bounced", "bounce_twice", 0, 0), ("delivered", "", 2, 0),
                                                       ("delivered", "", 0, 7)] {
            #expect(throws: SQLiteError.self) {
                try database.execute(insert, [.text("bad"), .text("x"), .text(state), bounceAction.isEmpty ? .null : .text(bounceAction),
                                              .integer(Int64(flagged)), .integer(Int64(hidden))])
            }
        }
        #expect(throws: SQLiteError.self) {
            try database.execute(insert, [.text("m9"), .text("again"), .text("delivered"), .null, .integer(0), .integer(0)])
        }
    }

    /// 0008 moves each channel's order from an index into `channel_messages`: every message
    /// stored before it must be there, and the mark must say so.
    @Test func theChannelTableStartsWithEveryStoredMessage() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let migrations = try Migration.load(directory: repository.appendingPathComponent("migrations"))
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        try database.execute("PRAGMA foreign_keys = ON")
        try Migrator(migrations: migrations.filter { $0.version < 8 }).migrate(database)
        for index in 0..<12 {
            try database.execute("""
                INSERT INTO messages (id, channel_id, user_id, text, state, created_at, updated_at)
                VALUES (?, ?, 'u', 'x', 'delivered', 't', 't')
                """, [.text("m\(index)"), .text("messaging:c\(index % 3)")])
        }
        try database.execute("DELETE FROM messages WHERE id IN ('m4', 'm11')")
        #expect(try Migrator(migrations: migrations.filter { $0.version <= 8 }).migrate(database).map(\.version) == [8])
        let pairs = "SELECT channel_id || ' ' || sequence AS pair FROM %@ ORDER BY channel_id, sequence"
        let copied = try database.fetchAll(pairs.replacingOccurrences(of: "%@", with: "channel_messages")).map { try $0.decodeIfPresent("pair", as: String.self) }
        let stored = try database.fetchAll(pairs.replacingOccurrences(of: "%@", with: "messages")).map { try $0.decodeIfPresent("pair", as: String.self) }
        #expect(copied == stored)
        #expect(copied.count == 10)
        #expect(try database.fetchValue("SELECT indexed_through FROM channel_messages_progress", as: Int.self) == 11)
        #expect(try database.fetchValue("SELECT count(*) FROM sqlite_master WHERE name = 'messages_by_channel'", as: Int.self) == 0)
        #expect(try database.fetchValue("PRAGMA integrity_check", as: String.self) == "ok")
    }
}
