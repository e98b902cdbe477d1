import Foundation
import Locking
import Testing
import TestSupport
@testable import BouncerSQLite
@testable import BouncerStore

@Suite struct CheckpointTests {
    static let schema = [Migration(version: 1, name: "pages", sql: "CREATE TABLE pages (id INTEGER PRIMARY KEY, data BLOB NOT NULL) STRICT;")]

    @Test func theLogIsCopiedBetweenGroupsAndStartsOver() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite3")
        let events = Locked<[String]>([])
        let store = try SQLiteStore(path: path, migrations: Self.schema) { report in
            if report.checkpoint != nil { events.withLock { $0.append("checkpoint") } }
        }
        let page = [UInt8](repeating: 7, count: 4000)
        let writes = 80, rowsPerWrite = 50
        // About four times the log's threshold, one group at a time.
        for index in 0..<writes {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                store.writer.write({ database in
                    for _ in 0..<rowsPerWrite { try database.execute("INSERT INTO pages (data) VALUES (?)", [.blob(page)]) }
                }, completion: { result in
                    // On the writer's queue: a checkpoint after this group is reported after this.
                    events.withLock { $0.append("write \(index)") }
                    continuation.resume(with: result)
                })
            }
        }
        #expect(try await waitUntil { events.withLock { $0.filter { $0 == "checkpoint" }.count } >= 3 })
        let recorded = events.withLock { $0 }
        // Each checkpoint came after the callers of the group before it had their answer.
        for (position, event) in recorded.enumerated() where event == "checkpoint" {
            #expect(position > 0 && recorded[position - 1].hasPrefix("write "))
        }
        // Copied logs start over from their beginning: the file holds about one threshold's
        // frames, not every frame written.
        let logBytes = try #require(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
        let frameBytes = 4096 + 24
        #expect(logBytes < Int(LogCheckpointer.defaultThreshold) * 2 * frameBytes,
                "the log holds \(logBytes / frameBytes) frames after \(writes * rowsPerWrite) pages were written")
        store.close()

        let reopened = try SQLiteDatabase(path: path, mode: .readOnly)
        #expect(try reopened.fetchValue("SELECT count(*) FROM pages", as: Int.self) == writes * rowsPerWrite)
    }

    @Test func nothingIsCopiedBeforeTheThreshold() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite3")
        let database = try SQLiteStore.openWriter(path: path, configuration: StoreConfiguration())
        let checkpointer = LogCheckpointer(connection: database, threshold: 100, busyTimeoutMilliseconds: 5_000)
        try database.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        #expect(checkpointer.checkpointIfDue(database) == nil)
        try database.inTransaction { database in
            for _ in 0..<150 { try database.execute("INSERT INTO pages (data) VALUES (?)", [.blob([UInt8](repeating: 1, count: 4000))]) }
        }
        #expect(checkpointer.checkpointIfDue(database) != nil)
        // Reported once: the next commit reports the log's size again.
        #expect(checkpointer.checkpointIfDue(database) == nil)
    }

    /// Reads that overlap without a pause keep any one checkpoint from letting the log start over;
    /// past its restart size, a checkpoint waits for the readers of the moment, and the log stays
    /// bounded. Without that it grew with everything written.
    @Test func theLogStaysBoundedUnderOverlappingLongReads() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite3")
        var configuration = StoreConfiguration()
        configuration.logRestartFrames = 600
        let reports = Locked<[(log: Int, checkpointed: Int)]>([])
        let store = try SQLiteStore(path: path, configuration: configuration, migrations: Self.schema) { report in
            if let checkpoint = report.checkpoint {
                reports.withLock { $0.append((checkpoint.logFrames, checkpoint.checkpointedFrames)) }
            }
        }
        defer { store.close() }
        let stop = Locked(false)
        // Two readers, each holding a read transaction for 150 ms, staggered: one is always open.
        let readers = (0..<2).map { reader in
            Thread {
                guard let database = try? SQLiteDatabase(path: path, mode: .readOnly) else { return }
                usleep(UInt32(reader) * 75_000)
                while !stop.withLock({ $0 }) {
                    try? database.execute("BEGIN")
                    _ = try? database.fetchValue("SELECT count(*) FROM pages", as: Int.self)
                    usleep(150_000)
                    try? database.execute("COMMIT")
                }
            }
        }
        readers.forEach { $0.start() }
        let page = [UInt8](repeating: 9, count: 4000)
        var largest = 0
        // About 16 MiB written in all, in groups of 50 pages.
        for _ in 0..<80 {
            try await store.writer.write { database in
                for _ in 0..<50 { try database.execute("INSERT INTO pages (data) VALUES (?)", [.blob(page)]) }
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            largest = max(largest, size)
        }
        stop.withLock { $0 = true }
        // The log never held much more than the restart size plus what a checkpoint's wait lets in.
        #expect(largest < 8 * 1024 * 1024, "the log grew to \(largest / 1024 / 1024) MiB")
        let seen = reports.withLock { $0 }
        #expect(!seen.isEmpty, "checkpoints report what they found")
        #expect(seen.contains { $0.log > 0 && $0.checkpointed == $0.log }, "a checkpoint copied the whole log at least once: \(seen.suffix(5))")
    }
}
