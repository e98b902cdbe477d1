import Testing
import TestSupport
@testable import BouncerSQLite
@testable import BouncerStore

@Suite struct DatabaseTests {
    @Test func valuesRoundTripThroughEveryStorageClass() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        try database.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        let values: [DatabaseValue] = [.integer(Int64.max), .real(2.5), .text("héllo 👋 \u{0}x"), .blob([0, 1, 255]), .null]
        try database.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", values)
        let row = try #require(try database.fetchOne("SELECT * FROM t"))
        #expect(row.values == values)
        #expect(try row.decodeIfPresent("i", as: Int64.self) == Int64.max)
        #expect(try row.decodeIfPresent("n", as: String.self) == nil)
        #expect(row["missing"] == .null)
    }

    @Test func emptyTextStaysTextNotNull() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        #expect(try database.fetchOne("SELECT ?, typeof(?)", ["", ""])?.values == [.text(""), .text("text")])
    }

    @Test func errorsCarryTheResultCodeAndSQL() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
        try database.execute("INSERT INTO t (name) VALUES (?)", ["a"])
        let error = try #require(throws: SQLiteError.self) {
            try database.execute("INSERT INTO t (name) VALUES (?)", ["a"])
        }
        #expect(error.resultCode == 19)  // SQLITE_CONSTRAINT
        #expect(error.isUniqueConstraintViolation)
        #expect(error.sql == "INSERT INTO t (name) VALUES (?)")
        // Bound values are user data: they stay out of the description.
        #expect(!error.description.contains("'a'"))

        let syntax = try #require(throws: SQLiteError.self) { try database.fetchAll("SELEKT 1") }
        #expect(syntax.resultCode == 1)
        #expect(syntax.message.contains("syntax error"))
    }

    @Test func wrongArgumentCountIsAnError() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        #expect(throws: SQLiteError.self) { try database.fetchAll("SELECT ?, ?", [1]) }
    }

    @Test func cachedStatementsArePreparedOnce() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        let first = try database.cachedStatement("SELECT 1")
        let second = try database.cachedStatement("SELECT 1")
        #expect(first === second)
        #expect(try database.fetchValue("SELECT ? + 1", [41], as: Int.self) == 42)
        #expect(try database.fetchValue("SELECT ? + 1", [1], as: Int.self) == 2)
    }

    /// Declared in the test, after the store's own: slots beyond what a connection has seen.
    static let insertPair = FrequentSQL("INSERT INTO t (a, b) VALUES (?, ?)")
    static let deleteRow = FrequentSQL("DELETE FROM t WHERE a = ?")

    @Test func frequentSQLIsPreparedOncePerConnectionAndRunsWithEachRunsValues() throws {
        let directory = try TemporaryDirectory()
        let first = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        let second = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        try first.execute("CREATE TABLE t (a INTEGER, b TEXT)")
        // The later slot first: the connection's table grows to fit it, the earlier stays empty.
        try first.execute(Self.deleteRow, [0])
        try first.execute(Self.insertPair, [1, "one"])
        try first.execute(Self.insertPair, [2, .text(String(repeating: "two ", count: 50))])
        #expect(try first.cachedStatement(Self.insertPair) === first.cachedStatement(Self.insertPair))
        // Each connection has its own statement for the same slot.
        try second.execute(Self.insertPair, [3, .null])
        #expect(try first.cachedStatement(Self.insertPair) !== second.cachedStatement(Self.insertPair))
        try first.execute(Self.deleteRow, [2])
        #expect(try first.fetchAll("SELECT a, b FROM t ORDER BY a").map(\.values) == [[.integer(1), .text("one")], [.integer(3), .null]])
        #expect(Self.insertPair.slot != Self.deleteRow.slot)
    }

    @Test func aCachedStatementRunsAgainWithEachRunsValues() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        // Each run binds over the last one's values: longer and shorter texts, other types, NULL.
        let runs: [[DatabaseValue]] = [
            [.text(String(repeating: "long text ", count: 100)), .blob([1, 2, 3]), .integer(7)],
            [.text("short"), .null, .text("now text")],
            [.null, .blob([]), .real(0.5)],
            [.text(""), .text("é"), .null],
        ]
        for values in runs {
            let row = try #require(try database.fetchOne("SELECT ? AS a, ? AS b, ? AS c", values))
            #expect(row.values == values)
        }
    }

    @Test func boundTextsAreTheStatementsOwnCopy() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        try database.execute("CREATE TABLE t (a TEXT, b TEXT, c BLOB)")
        let insert = try database.cachedStatement("INSERT INTO t VALUES (?, ?, ?)")
        // SQLite reads bound texts in place while the statement runs: what it reads must outlive
        // the caller's strings, and survive the bound bytes growing from one run to the next.
        var expected: [[DatabaseValue]] = []
        for size in [1, 300, 5, 5_000, 0] {
            func values() -> [DatabaseValue] {
                [.text(String(repeating: "é", count: size) + "\(size)"), .text(String(repeating: "x", count: size * 2)),
                 .blob([UInt8](repeating: UInt8(size % 256), count: size))]
            }
            try insert.bind(values())
            while try insert.step() {}
            expected.append(values())
        }
        #expect(try database.fetchAll("SELECT a, b, c FROM t ORDER BY rowid").map(\.values) == expected)
    }

    @Test func openingAMissingReadOnlyFileFails() throws {
        let directory = try TemporaryDirectory()
        let error = try #require(throws: SQLiteError.self) {
            _ = try SQLiteDatabase(path: directory.path("absent/db.sqlite3"), mode: .readOnly)
        }
        #expect(error.resultCode == 14)  // SQLITE_CANTOPEN
    }

    @Test func transactionsCommitOrRollBack() throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("db.sqlite3"))
        try database.execute("CREATE TABLE t (v INTEGER)")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try database.inTransaction { database in
                try database.execute("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try database.fetchValue("SELECT count(*) FROM t", as: Int.self) == 0)
        #expect(!database.isInTransaction)

        try database.inTransaction { database in
            try database.execute("INSERT INTO t VALUES (1)")
            _ = try? database.inSavepoint { database -> Void in
                try database.execute("INSERT INTO t VALUES (2)")
                throw Boom()
            }
            try database.execute("INSERT INTO t VALUES (3)")
        }
        #expect(try database.fetchAll("SELECT v FROM t ORDER BY v").map { try $0.decodeIfPresent(0, as: Int.self) } == [1, 3])
    }

    @Test func storeConnectionsUseWALDurabilityAndForeignKeys() throws {
        let directory = try TemporaryDirectory()
        var configuration = StoreConfiguration()
        let full = try SQLiteStore.openWriter(path: directory.path("a.sqlite3"), configuration: configuration)
        #expect(try full.fetchValue("PRAGMA journal_mode", as: String.self) == "wal")
        #expect(try full.fetchValue("PRAGMA synchronous", as: Int.self) == 2)  // FULL
        #expect(try full.fetchValue("PRAGMA foreign_keys", as: Int.self) == 1)
        #expect(try full.fetchValue("PRAGMA busy_timeout", as: Int.self) == 5000)
        configuration.synchronous = .normal
        let normal = try SQLiteStore.openWriter(path: directory.path("b.sqlite3"), configuration: configuration)
        #expect(try normal.fetchValue("PRAGMA synchronous", as: Int.self) == 1)  // NORMAL
    }
}
