import Foundation
import Testing
import TestSupport
@testable import BouncerSQLite
@testable import BouncerStore

/// The writer's VFS, which hands a commit's WAL frames to the log in one write: whatever it holds
/// must reach the file before anything can depend on it.
@Suite struct WALBatchingTests {
    private static func configuration(_ synchronous: StoreConfiguration.Synchronous) -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.synchronous = synchronous
        return configuration
    }

    /// The VFS writes a commit's frames out when its commit frame is written, before SQLite syncs
    /// or publishes them: safe whether or not the connection syncs at each commit.
    @Test func writersBatchTheirLogWhateverTheirSynchronousSetting() throws {
        let directory = try TemporaryDirectory()
        for synchronous in StoreConfiguration.Synchronous.allCases {
            let path = directory.path("\(synchronous.rawValue).sqlite3")
            let writer = try SQLiteStore.openWriter(path: path, configuration: Self.configuration(synchronous))
            #expect(writer.vfsName == "bouncer-wal-batching")
            try writer.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            let reader = try SQLiteDatabase(path: path, mode: .readOnly)
            for index in 0..<20 {
                try writer.execute("INSERT INTO notes (body) VALUES (?)", [.text("note \(index)")])
                // Another connection reads the file at once: the frames are there.
                #expect(try reader.fetchValue("SELECT count(*) FROM notes", as: Int.self) == index + 1)
            }
        }
    }

    /// A later `PRAGMA synchronous = NORMAL` (a migration might run one) or a database opened
    /// with `psow=0` once left committed frames held in memory, where readers looked for them in
    /// vain. What the VFS rests on is now checked where it can change.
    @Test func settingsChangedAfterOpeningLeaveNoCommitHeld() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite3")
        let writer = try SQLiteStore.openWriter(path: path, configuration: Self.configuration(.full))
        try writer.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try writer.execute("PRAGMA synchronous = NORMAL")
        let reader = try SQLiteDatabase(path: path, mode: .readOnly)
        for index in 0..<20 {
            try writer.execute("INSERT INTO notes (body) VALUES (?)", [.text("normal \(index)")])
            #expect(try reader.fetchValue("SELECT count(*) FROM notes", as: Int.self) == index + 1)
        }
        let padded = try SQLiteDatabase(path: "file:\(directory.path("psow.sqlite3"))?psow=0", mode: .readWrite,
                                  vfs: try SQLiteStore.logVFS(over: nil))
        _ = try padded.fetchValue("PRAGMA journal_mode = WAL", as: String.self)
        try padded.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        let paddedReader = try SQLiteDatabase(path: directory.path("psow.sqlite3"), mode: .readOnly)
        for index in 0..<20 {
            try padded.execute("INSERT INTO notes (body) VALUES (?)", [.text("padded \(index)")])
            #expect(try paddedReader.fetchValue("SELECT count(*) FROM notes", as: Int.self) == index + 1)
        }
    }

    @Test func everyCommitIsInTheLogFileWhenItReturns() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLiteStore.openWriter(path: directory.path("db.sqlite3"), configuration: Self.configuration(.full))
        try writer.execute("PRAGMA wal_autocheckpoint = 0")
        try writer.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        // Small commits, and one larger than a run of held writes (128 KiB) with a cache too small
        // to hold it, so that SQLite also writes frames before the commit and reads them back.
        for index in 0..<50 {
            try writer.execute("INSERT INTO notes (body) VALUES (?)", [.text("note \(index)")])
        }
        try writer.execute("PRAGMA cache_size = 8")
        try writer.executeCached("BEGIN IMMEDIATE")
        for index in 0..<3_000 {
            try writer.execute("INSERT INTO notes (body) VALUES (?)", [.text(String(repeating: "x", count: 200) + "\(index)")])
        }
        try writer.executeCached("COMMIT")

        // Another connection sees everything at once...
        let reader = try SQLiteDatabase(path: directory.path("db.sqlite3"), mode: .readOnly)
        #expect(try reader.fetchValue("SELECT count(*) FROM notes", as: Int.self) == 3_050)

        // ...and the files as they are on disk, with the writer still open and nothing
        // checkpointed, hold every commit: a copy opened elsewhere recovers them from the log.
        let copy = directory.path("copy.sqlite3")
        try FileManager.default.copyItem(atPath: directory.path("db.sqlite3"), toPath: copy)
        try FileManager.default.copyItem(atPath: directory.path("db.sqlite3") + "-wal", toPath: copy + "-wal")
        let recovered = try SQLiteDatabase(path: copy)
        #expect(try recovered.fetchValue("SELECT count(*) FROM notes", as: Int.self) == 3_050)
        #expect(try recovered.fetchValue("SELECT body FROM notes WHERE id = 3050", as: String.self)
                == String(repeating: "x", count: 200) + "2999")
        #expect(try recovered.fetchValue("PRAGMA integrity_check", as: String.self) == "ok")
        _ = writer
    }

    @Test func aRolledBackTransactionLeavesTheLogConsistent() throws {
        let directory = try TemporaryDirectory()
        let writer = try SQLiteStore.openWriter(path: directory.path("db.sqlite3"), configuration: Self.configuration(.full))
        try writer.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try writer.execute("PRAGMA cache_size = 8")
        try writer.executeCached("BEGIN IMMEDIATE")
        for index in 0..<2_000 {
            try writer.execute("INSERT INTO notes (body) VALUES (?)", [.text(String(repeating: "y", count: 200) + "\(index)")])
        }
        try writer.executeCached("ROLLBACK")
        try writer.execute("INSERT INTO notes (body) VALUES (?)", [.text("kept")])

        let reader = try SQLiteDatabase(path: directory.path("db.sqlite3"), mode: .readOnly)
        #expect(try reader.fetchAll("SELECT body FROM notes").map { try $0.decodeIfPresent("body", as: String.self) } == ["kept"])
        #expect(try writer.fetchValue("PRAGMA integrity_check", as: String.self) == "ok")
    }
}
