import Foundation
import Locking
import Testing
import TestSupport
@testable import BouncerSQLite
@testable import BouncerStore

/// A backup of a live store finishes while eight writers go on at full speed, and is one
/// consistent snapshot.
@Suite struct BackupUnderLoadTests {
    static let schema = [Migration(version: 1, name: "items", sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL UNIQUE, body TEXT NOT NULL) STRICT;")]

    @Test func aBackupFinishesBesideEightWritersAtFullSpeed() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path("store.sqlite3"), migrations: Self.schema)
        defer { store.close() }
        // A store of a few thousand pages, so that a copy takes many of the old 256-page steps.
        for batch in 0..<100 {
            try await store.writer.write { database in
                for row in 0..<1_000 {
                    try database.execute("INSERT INTO items (label, body) VALUES (?, ?)", [.text("seed\(batch)-\(row)"), .text(String(repeating: "s", count: 150))])
                }
            }
        }
        let stop = Locked(false)
        let written = Locked(0)
        let writers = Task {
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        var index = 0
                        while !stop.withLock({ $0 }) {
                            let label = "w\(writer)-\(index)"
                            try? await store.writer.write { database in
                                try database.execute("INSERT INTO items (label, body) VALUES (?, 'w')", [.text(label)])
                            }
                            written.withLock { $0 += 1 }
                            index += 1
                        }
                    }
                }
            }
        }
        // The backup runs while the writers write; they stop only after it has returned, or
        // after a minute if it never does.
        let path = directory.path("backup.sqlite3")
        let backup = Task.detached { try Backup.copy(storeAt: directory.path("store.sqlite3"), to: path) }
        let writtenAtStart = written.withLock { $0 }
        let finished = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { _ = try await backup.value; return true }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                // Stopping the writers lets a backup that restarts at every commit finish at last.
                stop.withLock { $0 = true }
                return false
            }
            let first = try await group.next()!
            group.cancelAll()
            stop.withLock { $0 = true }
            return first
        }
        let writtenDuring = written.withLock { $0 } - writtenAtStart
        stop.withLock { $0 = true }
        await writers.value
        #expect(finished, "the backup did not finish within a minute of steady writes")
        #expect(writtenDuring > 0, "the writers wrote while the backup ran")
        guard finished else { return }
        let copy = try SQLiteDatabase(path: path, mode: .readOnly)
        #expect(try copy.fetchValue("PRAGMA integrity_check", as: String.self) == "ok")
        let seeded = try copy.fetchValue("SELECT count(*) FROM items WHERE label LIKE 'seed%'", as: Int.self)
        #expect(seeded == 100_000)
    }
}
