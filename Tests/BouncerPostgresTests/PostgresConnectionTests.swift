import BouncerStore
import Glibc
import Testing
import TestSupport
@testable import BouncerPostgres

/// libpq through `PostgresConnection`, against a real server.
@Suite struct PostgresConnectionTests {
    @Test func valuesComeBackAsTheSQLiteStoreReadsThem() throws {
        let database = try PostgresTestDatabase()
        let connection = try PostgresConnection(url: database.url)
        try connection.executeScript("CREATE TABLE t (i BIGINT, s INT, b BOOLEAN, r DOUBLE PRECISION, x TEXT, y BYTEA)")
        let text = "héllo ✓ 'quoted' \"and\" \\ back, 𝄞"
        try connection.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)",
                               [.integer(Int64.max), .integer(-7), .integer(1), .real(2.5), .text(text), .blob([0, 1, 0xAB, 0xFF])])
        try connection.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", [.null, .null, .null, .null, .null, .null])
        let rows = try connection.fetchAll("SELECT i, s, b, r, x, y FROM t ORDER BY i NULLS LAST")
        #expect(rows.count == 2)
        #expect(rows[0]["i"] == .integer(Int64.max))
        #expect(rows[0]["s"] == .integer(-7))
        #expect(try rows[0].decodeIfPresent("b", as: Bool.self) == true, "a boolean reads as SQLite's 0 or 1")
        #expect(rows[0]["r"] == .real(2.5))
        #expect(rows[0]["x"] == .text(text))
        #expect(rows[0]["y"] == .blob([0, 1, 0xAB, 0xFF]))
        #expect(rows[1].values.allSatisfy { $0 == .null })
    }

    @Test func changesAreCountedAndReturningRowsRead() throws {
        let database = try PostgresTestDatabase()
        let connection = try PostgresConnection(url: database.url)
        try connection.executeScript("CREATE TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name TEXT UNIQUE)")
        let inserted = try connection.query("INSERT INTO t (name) VALUES (?), (?) RETURNING id", [.text("a"), .text("b")])
        #expect(inserted.changes == 2)
        #expect(try inserted.rows.map { try $0.decode("id", as: Int64.self) } == [1, 2])
        let ignored = try connection.query("INSERT INTO t (name) VALUES (?) ON CONFLICT (name) DO NOTHING", [.text("a")])
        #expect(ignored.changes == 0)
    }

    @Test func errorsCarryTheirSQLStateAndTheTransactionCanGoOn() throws {
        let database = try PostgresTestDatabase()
        let connection = try PostgresConnection(url: database.url)
        try connection.executeScript("CREATE TABLE t (name TEXT PRIMARY KEY)")
        try connection.execute("INSERT INTO t VALUES (?)", [.text("a")])
        do {
            try connection.execute("INSERT INTO t VALUES (?)", [.text("a")])
            Issue.record("a duplicate key is refused")
        } catch {
            #expect(error.isUniqueViolation)
            #expect(!error.isUnavailable)
            #expect(error.sql?.contains("INSERT INTO t") == true)
            #expect(!error.description.contains("'a'"), "values stay out of the error")
        }
        #expect(try connection.fetchValue("SELECT count(*) FROM t", as: Int.self) == 1)
    }

    /// A prepared pipeline is parsed once a connection; a server that forgot what the connection
    /// prepared (a pooler handing it another session, a `DEALLOCATE`) fails that round trip
    /// alone, and the next prepares again.
    @Test func preparedPipelinesParseOnceAndPrepareAgainWhenTheServerForgets() throws {
        let database = try PostgresTestDatabase()
        let connection = try PostgresConnection(url: database.url)
        try connection.executeScript("CREATE TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name TEXT)")
        func insert(_ names: [String]) throws -> [String] {
            let results = try connection.pipeline([
                (sql: "BEGIN", arguments: []),
                (sql: "INSERT INTO t (name) SELECT unnest(?::text[]) RETURNING name", arguments: [.text(PostgresArrayLiteral.of(names.map(DatabaseValue.text)))]),
                (sql: "COMMIT", arguments: []),
            ], prepared: true)
            return try results[1].rows.map { try $0.decode("name", as: String.self) }
        }
        func prepared() throws -> [String] {
            try connection.fetchAll("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql ORDER BY prepare_time, statement")
                .map { try $0.decode("statement", as: String.self) }
        }
        #expect(try insert(["a", "b"]) == ["a", "b"])
        #expect(try insert(["c"]) == ["c"])
        let statements = try prepared()
        #expect(statements.count == 3, "each statement prepared once: \(statements)")
        #expect(statements.contains("INSERT INTO t (name) SELECT unnest($1::text[]) RETURNING name"), "with numbered placeholders")
        try connection.executeScript("DEALLOCATE ALL")
        do {
            _ = try insert(["lost"])
            Issue.record("the server forgot the statements")
        } catch let error as PostgresError {
            #expect(error.isMissingPreparedStatement)
            #expect(!error.isUnavailable)
        }
        if connection.isInTransaction { try connection.executeScript("ROLLBACK") }
        #expect(try insert(["d"]) == ["d"], "prepared again")
        #expect(try connection.fetchAll("SELECT name FROM t ORDER BY id").map { try $0.decode("name", as: String.self) } == ["a", "b", "c", "d"])
    }

    @Test func aServerThatIsNotThereIsUnavailable() {
        do {
            _ = try PostgresConnection(url: "postgres://nobody@127.0.0.1:1/none?connect_timeout=2")
            Issue.record("nothing listens on port 1")
        } catch {
            #expect(error.connectionLost)
            #expect(error.isUnavailable)
        }
    }

    @Test func notificationsArriveOnTheListeningConnection() throws {
        let database = try PostgresTestDatabase()
        let listener = try PostgresConnection(url: database.url)
        let sender = try PostgresConnection(url: database.url)
        try listener.executeScript("LISTEN bouncer_changes")
        try sender.execute("SELECT pg_notify('bouncer_changes', ?)", [.text("rules")])
        var received: [(channel: String, payload: String)] = []
        for _ in 0..<100 where received.isEmpty {
            received = try listener.notifications()
            if received.isEmpty { usleep(10_000) }
        }
        #expect(received.map(\.channel) == ["bouncer_changes"])
        #expect(received.map(\.payload) == ["rules"])
    }
}
