import BouncerStore
import Foundation
import Testing
import TestSupport
@testable import BouncerPostgres

/// Group commit on PostgreSQL, against a real server.
@Suite struct PostgresWriterTests {
    static func prepared() throws -> (PostgresTestDatabase, PostgresWriter) {
        let database = try PostgresTestDatabase()
        try PostgresConnection(url: database.url).executeScript("CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL)")
        return (database, PostgresWriter(url: database.url, maxBatchSize: 64))
    }

    /// Every tenth write collides with the one before it and must fail alone: in its savepoint,
    /// or, for writes that run without one (`needsSavepoint: false`), by aborting its group's
    /// transaction, which then runs again with savepoints.
    @Test(arguments: [true, false])
    func concurrentWritesAreAllCommittedAndAFailedOneUndoesOnlyItself(needsSavepoint: Bool) async throws {
        let (database, writer) = try Self.prepared()
        defer { writer.close() }
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let id = index % 10 == 9 ? "w\(index - 1)" : "w\(index)"
                    return await withCheckedContinuation { continuation in
                        writer.write({ connection in
                            try connection.execute("INSERT INTO t (id, n) VALUES (?, ?)", [.text(id), .integer(Int64(index))])
                        }, needsSavepoint: needsSavepoint) { continuation.resume(returning: (try? $0.get()) != nil) }
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 180)
        let stored = try PostgresConnection(url: database.url).fetchValue("SELECT count(*) FROM t", as: Int.self)
        #expect(stored == 180)
    }

    /// Combinable writes: their rows go in one statement a group. A key given twice is inserted
    /// once, the other write running its own way; a row the table refuses has the group run
    /// carefully, where that write alone fails.
    @Test func combinableRowsAreInsertedTogetherAndAFailureFallsBackToEachWrite() async throws {
        let database = try PostgresTestDatabase()
        try PostgresConnection(url: database.url).executeScript("""
            CREATE TABLE c (id TEXT PRIMARY KEY, n INTEGER NOT NULL CHECK (n >= 0), sequence BIGINT GENERATED ALWAYS AS IDENTITY);
            CREATE TABLE cc (parent TEXT NOT NULL, note TEXT NOT NULL)
            """)
        let writer = PostgresWriter(url: database.url, maxBatchSize: 64, combinedInsert: CombinedInsert(
            table: "c", columns: [.init("id"), .init("n", "integer")], returning: "sequence", childTable: "cc",
            childColumns: [.init("parent"), .init("note")], childKey: "parent"))
        defer { writer.close() }
        let results = await withTaskGroup(of: String.self) { group in
            for index in 0..<300 {
                group.addTask {
                    // Every tenth reuses the key before it; one is refused by the CHECK.
                    let id = index % 10 == 9 ? "k\(index - 1)" : "k\(index)"
                    let n: Int64 = index == 150 ? -1 : Int64(index)
                    let row = CombinedInsert.Row(key: id, values: [.text(id), .integer(n)], children: [[.text(id), .text("child of \(index)")]])
                    return await withCheckedContinuation { continuation in
                        writer.write({ connection -> String in
                            let inserted = try connection.fetchOne(
                                "INSERT INTO c (id, n) VALUES (?, ?) ON CONFLICT (id) DO NOTHING RETURNING sequence", [.text(id), .integer(n)])
                            guard inserted != nil else { return "taken" }
                            try connection.execute("INSERT INTO cc (parent, note) VALUES (?, ?)", [.text(id), .text("child of \(index)")])
                            return "alone"
                        }, needsSavepoint: false, combinable: (row: row, made: { _ in "together" })) { result in
                            continuation.resume(returning: (try? result.get()) ?? "failed")
                        }
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        let counts = Dictionary(grouping: results) { $0 }.mapValues(\.count)
        #expect(counts["failed"] == 1, "the refused row's write alone fails: \(counts)")
        #expect(counts["taken"] == 30, "\(counts)")
        #expect((counts["together"] ?? 0) > 100, "most rows went in together: \(counts)")
        let connection = try PostgresConnection(url: database.url)
        #expect(try connection.fetchValue("SELECT count(*) FROM c", as: Int.self) == 269)
        #expect(try connection.fetchValue("SELECT count(*) FROM cc", as: Int.self) == 269, "each inserted row's child, and no other")
    }

    @Test func aWriteIsReadableOnceItsCallerHearsOfIt() async throws {
        let (database, writer) = try Self.prepared()
        defer { writer.close() }
        let reader = try PostgresConnection(url: database.url)
        for index in 0..<20 {
            try await writer.write { connection in
                try connection.execute("INSERT INTO t (id, n) VALUES (?, ?)", [.text("r\(index)"), .integer(Int64(index))])
            }
            #expect(try reader.fetchValue("SELECT n FROM t WHERE id = ?", [.text("r\(index)")], as: Int.self) == index)
        }
    }

    @Test func aLostConnectionFailsFastAndTheWriterConnectsAgain() async throws {
        let (database, writer) = try Self.prepared()
        defer { writer.close() }
        try await writer.write { connection in try connection.execute("INSERT INTO t VALUES ('before', 1)") }
        // The server ends the writer's session, as a restart would.
        let admin = try PostgresConnection(url: database.url)
        let ended = try admin.fetchValue("""
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid != pg_backend_pid()
            """, as: Int.self)
        #expect(ended == 1)
        do {
            try await writer.write { connection in try connection.execute("INSERT INTO t VALUES ('lost', 2)") }
            Issue.record("a write on a connection the server ended fails")
        } catch let error as PostgresError {
            #expect(error.isUnavailable)
        }
        var recovered = false
        for _ in 0..<50 where !recovered {
            recovered = (try? await writer.write { connection in try connection.execute("INSERT INTO t VALUES ('after', 3)") }) != nil
            if !recovered { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(recovered, "the writer connects again by itself")
        let ids = try admin.fetchAll("SELECT id FROM t ORDER BY n").compactMap { try $0.decodeIfPresent("id", as: String.self) }
        #expect(ids == ["before", "after"], "nothing of the failed write was kept")
    }

    @Test func readersSeeOneSnapshotAndComeBackAfterTheServerEndsThem() async throws {
        let (database, writer) = try Self.prepared()
        defer { writer.close() }
        let readers = PostgresReaderPool(url: database.url, count: 2)
        defer { readers.close() }
        try await writer.write { connection in try connection.execute("INSERT INTO t VALUES ('a', 1)") }
        let (first, second) = try await readers.read { connection in
            let first = try connection.fetchValue("SELECT count(*) FROM t", as: Int.self)
            // Committed by another connection meanwhile: not seen inside this read.
            try PostgresConnection(url: database.url).execute("INSERT INTO t VALUES ('b', 2)")
            return (first, try connection.fetchValue("SELECT count(*) FROM t", as: Int.self))
        }
        #expect(first == 1 && second == 1)
        #expect(try await readers.read { try $0.fetchValue("SELECT count(*) FROM t", as: Int.self) } == 2)
        _ = try PostgresConnection(url: database.url).execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid != pg_backend_pid()")
        var counts: [Int?] = []
        for _ in 0..<30 {
            counts.append(try? await readers.read { try $0.fetchValue("SELECT count(*) FROM t", as: Int.self) })
            if counts.suffix(2) == [2, 2] { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(counts.suffix(2) == [2, 2], "both readers connect again: \(counts)")
    }

    /// A write that leaves the group's transaction aborted (here it drops its own savepoint, then
    /// fails) takes the group down: no write of it may be reported committed, as none is.
    @Test func noWriteIsReportedCommittedFromAGroupThatWasRolledBack() async throws {
        let (database, writer) = try Self.prepared()
        defer { writer.close() }
        // Holds the writer, so that the writes below queue up and commit as one group.
        let holding = Task { try await writer.write { try $0.execute("SELECT pg_sleep(0.3)") } }
        try await Task.sleep(for: .milliseconds(100))
        let reported = await withTaskGroup(of: (String, Bool).self) { group in
            for index in 0..<6 {
                group.addTask {
                    let id = "g\(index)"
                    let committed = (try? await writer.write { (connection: PostgresConnection) -> Bool in
                        if index == 3 {
                            try connection.executeScript("RELEASE SAVEPOINT write")
                            try connection.execute("SELECT no_such_column FROM t", [])
                        }
                        try connection.execute("INSERT INTO t (id, n) VALUES (?, ?)", [.text(id), .integer(Int64(index))])
                        return true
                    }) != nil
                    return (id, committed)
                }
            }
            return await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
        }
        // Under load the holding write may join the writes' group, and fail with it.
        _ = try? await holding.value
        let stored = Set(try PostgresConnection(url: database.url).fetchAll("SELECT id FROM t").compactMap { try $0.decodeIfPresent("id", as: String.self) })
        for (id, committed) in reported where committed {
            #expect(stored.contains(id), "\(id) was reported committed")
        }
        #expect(reported["g3"] == false)
        // The writer goes on: the next group commits.
        try await writer.write { try $0.execute("INSERT INTO t (id, n) VALUES ('after', 9)") }
        #expect(try PostgresConnection(url: database.url).fetchValue("SELECT n FROM t WHERE id = 'after'", as: Int.self) == 9)
    }

    /// A group that loses a serialization failure runs again (the trigger fails the first two
    /// tries, as another instance's commit would), and succeeds; one that loses every time is
    /// told `isConflict` (503 to clients), never an error of its own, and the writer goes on.
    @Test func aWriteThatLosesToAnotherIsRunAgainAndOneThatAlwaysLosesIsAConflict() async throws {
        let (database, writer) = try Self.prepared()
        defer { writer.close() }
        try PostgresConnection(url: database.url).executeScript("""
            CREATE SEQUENCE tries;
            CREATE FUNCTION lose() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.n < 0 OR nextval('tries') <= 2 THEN
                    RAISE EXCEPTION 'could not serialize access (forced)' USING ERRCODE = '40001';
                END IF;
                RETURN NEW;
            END;
            $$;
            CREATE TRIGGER lose BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION lose();
            """)
        try await writer.write { try $0.execute("INSERT INTO t (id, n) VALUES ('won', 1)") }
        let connection = try PostgresConnection(url: database.url)
        #expect(try connection.fetchValue("SELECT last_value FROM tries", as: Int.self) == 3, "two lost tries, then the third won")
        do {
            try await writer.write { try $0.execute("INSERT INTO t (id, n) VALUES ('never', -1)") }
            Issue.record("a write that always loses is not committed")
        } catch let error as PostgresError {
            #expect(error.isConflict && !error.isUnavailable, "\(error)")
        }
        try await writer.write { try $0.execute("INSERT INTO t (id, n) VALUES ('after', 2)") }
        #expect(try connection.fetchAll("SELECT id FROM t ORDER BY n").compactMap { try $0.decodeIfPresent("id", as: String.self) } == ["won", "after"])
    }

    /// A real deadlock with another session: the writer's deadlock check finds the cycle and ends
    /// its own transaction (40P01); it runs the group again, which
    /// waits for the other session's commit and then succeeds.
    @Test func aDeadlockWithAnotherSessionIsRunAgainAndCommits() async throws {
        let (database, writer) = try Self.prepared()
        defer { writer.close() }
        let other = try PostgresConnection(url: database.url)
        try other.executeScript("INSERT INTO t (id, n) VALUES ('a', 0), ('b', 0)")
        // The other session checks for a deadlock long after the writer does: the writer's check,
        // 3 s after it began to wait, comes once the cycle is closed, however busy the machine.
        try other.executeScript("SET deadlock_timeout = '60s'; BEGIN; UPDATE t SET n = n + 10 WHERE id = 'a'")
        let write = Task {
            try await writer.write { connection in
                try connection.execute("SET LOCAL deadlock_timeout = '3s'", [])
                try connection.execute("UPDATE t SET n = n + 1 WHERE id = 'b'", [])
                try connection.execute("UPDATE t SET n = n + 1 WHERE id = 'a'", [])
            }
        }
        // The writer now holds b and waits for a; taking b closes the cycle.
        let blocked = try PostgresConnection(url: database.url)
        #expect(try await waitUntil(.seconds(20)) {
            (try? blocked.fetchValue("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
                                     as: Int.self)) == 1
        }, "the writer waits for the other session's lock")
        try other.execute("UPDATE t SET n = n + 10 WHERE id = 'b'", [])
        try other.executeScript("COMMIT")
        try await write.value
        let values = try blocked.fetchAll("SELECT id, n FROM t ORDER BY id").map { "\(try $0.decodeIfPresent("id", as: String.self)!)=\(try $0.decodeIfPresent("n", as: Int.self)!)" }
        #expect(values == ["a=11", "b=11"], "both sessions' changes, the writer's once")
    }
}
