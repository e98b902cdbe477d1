import CFaultVFS
import CSQLite
import Foundation
import Locking
import Testing
import TestSupport
@testable import BouncerSQLite
@testable import BouncerStore

/// The store under storage faults: a VFS under the writer's fails writes, syncs and reads as a full
/// disk or a failing device would. Whatever fails, every acknowledged write is there exactly once,
/// no write is there in part, and the file is sound, in the live store, in a copy of its files
/// taken meanwhile (a crash), and after a restart.
@Suite(.serialized) struct StorageFaultTests {
    static let faultVFS = "bouncer-fault"
    static let log = Int32(FAULT_LOG), everyFile = Int32(FAULT_LOG | FAULT_DATABASE | FAULT_JOURNAL)
    static let writes = Int32(FAULT_WRITE), syncs = Int32(FAULT_SYNC), reads = Int32(FAULT_READ)

    struct Fault: Sendable, CustomTestStringConvertible {
        var error: Int32
        var operations: Int32
        var seed: UInt32
        var testDescription: String { "error \(error) on operations \(operations), seed \(seed)" }
    }
    static let schema = [Migration(version: 1, name: "items", sql: """
        CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL UNIQUE, body TEXT NOT NULL) STRICT;
        """)]

    static func configuration() throws -> StoreConfiguration {
        #expect(fault_vfs_register(faultVFS) == SQLITE_OK)
        var configuration = StoreConfiguration()
        configuration.writerBaseVFS = faultVFS
        return configuration
    }

    /// Each write adds two rows, `<label>-a` and `<label>-b`, through a statement that uses a
    /// statement journal (`INSERT ... SELECT`), with bodies large enough that a group spills pages
    /// out of a small cache and reads them back.
    static func write(_ store: SQLiteStore, _ label: String) async throws {
        try await store.writer.write { database in
            let body = String(repeating: label, count: max(1, 600 / label.count))
            try database.execute("INSERT INTO items (label, body) SELECT ?, ? UNION ALL SELECT ?, ?",
                                 [.text(label + "-a"), .text(body), .text(label + "-b"), .text(body)])
            // Reads rows written earlier in the group, whose pages may have left the cache.
            _ = try database.fetchValue("SELECT count(*) FROM items WHERE id % 97 = 0", as: Int.self)
        }
    }

    /// Every acknowledged label has both its rows, and no label has only one.
    static func verify(_ database: SQLiteDatabase, acknowledged: Set<String>, _ context: String) throws {
        #expect(try database.fetchValue("PRAGMA integrity_check", as: String.self) == "ok", "\(context)")
        let labels = try database.fetchAll("SELECT label FROM items").compactMap { try $0.decodeIfPresent("label", as: String.self) }
        var halves: [String: Int] = [:]
        for label in labels { halves[String(label.dropLast(2)), default: 0] += 1 }
        #expect(halves.values.allSatisfy { $0 == 2 }, "\(context): a write is there in part")
        let missing = acknowledged.subtracting(halves.keys)
        #expect(missing.isEmpty, "\(context): \(missing.count) acknowledged writes lost, e.g. \(missing.prefix(3))")
    }

    /// Waits (up to a minute, then the test's expectations tell) until `condition` holds.
    static func wait(_ condition: () -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(1)) }
    }

    @Test(arguments: [
        Fault(error: SQLITE_FULL, operations: writes, seed: 1), Fault(error: 778 /* IOERR_WRITE */, operations: writes, seed: 2),
        Fault(error: 1034 /* IOERR_FSYNC */, operations: syncs, seed: 3), Fault(error: 266 /* IOERR_READ */, operations: reads, seed: 4),
        Fault(error: SQLITE_FULL, operations: writes | syncs | reads, seed: 5),
    ])
    func acknowledgedWritesSurviveRandomFaults(fault: Fault) async throws {
        let (error, operations, seed) = (fault.error, fault.operations, fault.seed)
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite3")
        let store = try SQLiteStore(path: path, configuration: try Self.configuration(), migrations: Self.schema)
        _ = try await store.writer.exclusive { database in try database.execute("PRAGMA cache_size = 12") }
        let acknowledged = Locked<Set<String>>([])
        let failuresBefore = fault_vfs_failures(directory.resolvedPath)
        for round in 0..<4 {
            // Faults for a while (each operation fails with a chance of 3%), then none.
            fault_vfs_arm(directory.resolvedPath, Self.everyFile, operations, error, 0, -1, 30_000, seed &* 7919 &+ UInt32(round))
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        for index in 0..<40 {
                            let label = "r\(round)w\(writer)i\(index)"
                            if (try? await Self.write(store, label)) != nil { acknowledged.withLock { _ = $0.insert(label) } }
                        }
                    }
                }
            }
            fault_vfs_disarm(directory.resolvedPath)
            // A copy of the files as they are now, as a crash would leave them.
            let copy = directory.path("copy\(round).sqlite3")
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            if FileManager.default.fileExists(atPath: path + "-wal") {
                try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
            }
            let known = acknowledged.withLock { $0 }
            try Self.verify(try SQLiteDatabase(path: copy), acknowledged: known, "copy after round \(round)")
            try await store.readers.read { database in try Self.verify(database, acknowledged: known, "live after round \(round)") }
            // The store goes on once the storage is well again.
            try await Self.write(store, "after\(round)")
            acknowledged.withLock { _ = $0.insert("after\(round)") }
        }
        #expect(fault_vfs_failures(directory.resolvedPath) > failuresBefore, "faults were injected")
        #expect(acknowledged.withLock { $0.count } > 8, "writes got through between faults")
        store.close()
        try Self.verify(try SQLiteDatabase(path: path), acknowledged: acknowledged.withLock { $0 }, "after a restart")
    }

    /// A write that fails for the storage's sake fails its whole group: the others' changes were
    /// made on a connection whose state SQLite may not know, so none of them is committed. Here
    /// SQLite itself undoes only the failed statement (it fires a trigger, so it has a statement
    /// journal) and would let the transaction commit: the writer must not.
    @Test func aStorageFailureFailsTheWholeGroup() async throws {
        let directory = try TemporaryDirectory()
        let schema = Self.schema + [Migration(version: 2, name: "removed", sql: """
            CREATE TABLE removed (id INTEGER PRIMARY KEY) STRICT;
            CREATE TRIGGER item_removed AFTER DELETE ON items BEGIN INSERT INTO removed (id) VALUES (old.id); END;
            """)]
        let store = try SQLiteStore(path: directory.path("store.sqlite3"), configuration: try Self.configuration(), migrations: schema)
        defer { store.close() }
        // Rows committed before, whose pages will have left a small cache for the log.
        for batch in 0..<5 {
            try await store.writer.write { database in
                for row in 0..<40 {
                    try database.execute("INSERT INTO items (label, body) VALUES (?, ?)",
                                         [.text("old\(batch)-\(row)"), .text(String(repeating: "o", count: 900))])
                }
            }
        }
        _ = try await store.writer.exclusive { database in try database.execute("PRAGMA cache_size = 8") }
        // Hold the writer's queue so the writes below are grouped.
        let (started, gate) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let held = Task { try await store.writer.exclusive { (_: SQLiteDatabase) -> Bool in started.signal(); gate.wait(); return true } }
        await Self.wait { started.wait(timeout: .now()) == .success }
        let outcomes = Locked<[Int: Bool]>([:])
        var writes: [Task<Void, Never>] = []
        for index in 0..<20 {
            // Queued one after another: the first ten spill frames the group then holds.
            writes.append(Task {
                let ok = (try? await store.writer.write { (database: SQLiteDatabase) -> Bool in
                    if index == 10 {
                        // The flush before reading the first row's page from the log fails.
                        try database.execute("PRAGMA cache_spill = OFF")
                        fault_vfs_arm(directory.resolvedPath, Self.log, Self.writes, SQLITE_FULL, 0, 1, 0, 0)
                        defer {
                            fault_vfs_disarm(directory.resolvedPath)
                            try? database.execute("PRAGMA cache_spill = ON")
                        }
                        try database.execute("DELETE FROM items WHERE label = 'old0-0'")
                    } else {
                        try database.execute("INSERT INTO items (label, body) VALUES (?, ?)",
                                             [.text("new\(index)"), .text(String(repeating: "n", count: 3000))])
                    }
                    return true
                }) == true
                outcomes.withLock { $0[index] = ok }
            })
            await Self.wait { store.writer.queuedWrites == index + 1 }
        }
        gate.signal()
        _ = try await held.value
        for write in writes { await write.value }
        let results = outcomes.withLock { $0 }
        #expect(results[10] == false)
        #expect(results.values.filter { $0 }.isEmpty, "the failed write's group failed with it: \(results.filter { $0.value }.keys.sorted())")
        let stored = try await store.readers.read { database in
            Set(try database.fetchAll("SELECT label FROM items").compactMap { try $0.decodeIfPresent("label", as: String.self) })
        }
        #expect(stored.filter { $0.hasPrefix("new") }.isEmpty)
        #expect(stored.contains("old0-0"))
        #expect(try await store.readers.read { try $0.fetchValue("PRAGMA integrity_check", as: String.self) } == "ok")
    }

    /// The reviewer's first case: frames spilled early in a transaction are held; the flush before
    /// a read of the log fails; a statement with a statement journal is rolled back alone; space
    /// comes back and COMMIT succeeds. The held frames must not have been dropped.
    @Test func framesHeldWhenAFlushFailsAreWrittenByTheCommit() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite3")
        let writer = try SQLiteStore.openWriter(path: path, configuration: try Self.configuration())
        // A delete with a trigger, as deleting a message is (its channel_messages entry goes with it).
        try writer.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try writer.execute("CREATE TABLE removed (id INTEGER PRIMARY KEY)")
        try writer.execute("CREATE TRIGGER note_removed AFTER DELETE ON notes BEGIN INSERT INTO removed (id) VALUES (old.id); END")
        try writer.execute("PRAGMA cache_size = 8")
        let failuresBefore = fault_vfs_failures(directory.resolvedPath)
        try writer.executeCached("BEGIN IMMEDIATE")
        for index in 0..<1_500 {
            try writer.execute("INSERT INTO notes (body) VALUES (?)", [.text(String(repeating: "n", count: 200) + "\(index)")])
        }
        // The next write of held frames to the log fails, as on a full disk. The statement reads an
        // early row, whose page left the cache for the log: the flush before that read fails. It
        // fires a trigger, so it has a statement journal and SQLite undoes it alone.
        fault_vfs_arm(directory.resolvedPath, Self.log, Self.writes, SQLITE_FULL, 0, 1, 0, 0)
        // No more spills: the only write to the log is the flush before the read.
        try writer.execute("PRAGMA cache_spill = OFF")
        #expect(throws: SQLiteError.self) {
            try writer.execute("DELETE FROM notes WHERE id = 2")
        }
        fault_vfs_disarm(directory.resolvedPath)
        #expect(fault_vfs_failures(directory.resolvedPath) > failuresBefore, "the flush failed")
        #expect(writer.isInTransaction, "the statement was undone alone")
        try writer.executeCached("COMMIT")
        let expected = 1_500

        let copy = directory.path("copy.sqlite3")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        for database in [try SQLiteDatabase(path: path, mode: .readOnly), try SQLiteDatabase(path: copy)] {
            #expect(try database.fetchValue("PRAGMA integrity_check", as: String.self) == "ok")
            let count = try database.fetchValue("SELECT count(*) FROM notes", as: Int.self) ?? -1
            #expect(count == expected, "\(count) rows, \(expected) committed")
        }
        _ = writer
    }

    /// The reviewer's second case: a transaction spills frames and rolls back without reading the
    /// log; another process then commits; the first connection's next read must not write its
    /// stale frames over the other's.
    @Test func heldBytesDoNotOutliveTheWriteLock() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite3")
        let writer = try SQLiteStore.openWriter(path: path, configuration: StoreConfiguration())
        try writer.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try writer.execute("PRAGMA cache_size = 8")
        // An empty log, so that undoing the transaction reads nothing from it.
        _ = try writer.fetchAll("PRAGMA wal_checkpoint(TRUNCATE)")
        try writer.executeCached("BEGIN IMMEDIATE")
        for index in 0..<2_000 {
            try writer.execute("INSERT INTO notes (body) VALUES (?)", [.text(String(repeating: "s", count: 200) + "\(index)")])
        }
        try writer.executeCached("ROLLBACK")

        // A second writer, in another process: Python's sqlite3 module over the system SQLite.
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
            for i in range(240):
                db.execute("BEGIN IMMEDIATE")
                db.execute("INSERT INTO notes (body) VALUES (?)", ("other %d " % i + "o" * 300,))
                db.execute("COMMIT")
            db.close()
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, path]
        try python.run()
        #expect(python.waitForEnd() == 0)

        // The first connection reads (which once flushed what it held) and closes.
        #expect(try writer.fetchValue("SELECT count(*) FROM notes", as: Int.self) == 240)
        writer.close()
        let reopened = try SQLiteDatabase(path: path, mode: .readOnly)
        #expect(try reopened.fetchValue("PRAGMA integrity_check", as: String.self) == "ok")
        #expect(try reopened.fetchValue("SELECT count(*) FROM notes", as: Int.self) == 240)
    }

    /// A failed write whose savepoint cannot be rolled back (reading the savepoint's journal fails)
    /// must not be released into its group's transaction: its group fails instead.
    @Test func aWriteThatCannotBeUndoneFailsItsGroup() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path("store.sqlite3"), configuration: try Self.configuration(), migrations: Self.schema)
        defer { store.close() }
        try await store.writer.write { database in
            for row in 0..<300 {
                try database.execute("INSERT INTO items (label, body) VALUES (?, ?)", [.text("row\(row)"), .text(String(repeating: "r", count: 900))])
            }
        }
        struct Refused: Error {}
        let failuresBefore = fault_vfs_failures(directory.resolvedPath)
        await #expect(throws: (any Error).self) {
            try await store.writer.write { database in
                // Changes more than a statement journal keeps in memory (64 KiB), so undoing them
                // reads its file.
                try database.execute("UPDATE items SET body = printf('%.900c', 'u')")
                fault_vfs_arm(directory.resolvedPath, Int32(FAULT_JOURNAL), Self.reads, 266 /* IOERR_READ */, 0, -1, 0, 0)
                throw Refused()
            }
        }
        fault_vfs_disarm(directory.resolvedPath)
        let journalFailed = fault_vfs_failures(directory.resolvedPath) > failuresBefore
        let updated = try await store.readers.read { database in
            try database.fetchValue("SELECT count(*) FROM items WHERE body LIKE 'u%'", as: Int.self) ?? -1
        }
        #expect(updated == 0, "the refused write's changes were committed (journal read failed: \(journalFailed))")
        #expect(try await store.readers.read { try $0.fetchValue("PRAGMA integrity_check", as: String.self) } == "ok")
        try await store.writer.write { database in try database.execute("INSERT INTO items (label, body) VALUES ('after', 'x')") }
    }
}
