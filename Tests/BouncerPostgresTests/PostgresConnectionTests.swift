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

    /// A prepared pipeline is parsed once a connection, each statement under a name made from its
    /// text alone, the same on every connection. A server that forgot some of what the connection
    /// prepared (a pooler handing it another session, a `DEALLOCATE`) fails that round trip
    /// alone; the next prepares again, and a name the session has already is that statement.
    @Test func preparedPipelinesParseOnceAndPrepareAgainWhenTheServerForgets() throws {
        let database = try PostgresTestDatabase()
        let connection = try PostgresConnection(url: database.url)
        try connection.executeScript("CREATE TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name TEXT)")
        let insertSQL = "INSERT INTO t (name) SELECT unnest(?::text[]) RETURNING name"
        func insert(_ names: [String], on connection: PostgresConnection) throws -> [String] {
            let results = try connection.pipeline([
                (sql: "BEGIN", arguments: []),
                (sql: insertSQL, arguments: [.text(PostgresArrayLiteral.of(names.map(DatabaseValue.text)))]),
                (sql: "COMMIT", arguments: []),
            ], prepared: true)
            return try results[1].rows.map { try $0.decode("name", as: String.self) }
        }
        func prepared(on connection: PostgresConnection) throws -> [String: String] {
            Dictionary(uniqueKeysWithValues: try connection.fetchAll("SELECT name, statement FROM pg_prepared_statements WHERE NOT from_sql")
                .map { (try $0.decode("statement", as: String.self), try $0.decode("name", as: String.self)) })
        }
        #expect(try insert(["a", "b"], on: connection) == ["a", "b"])
        #expect(try insert(["c"], on: connection) == ["c"])
        let statements = try prepared(on: connection)
        #expect(statements.count == 3, "each statement prepared once: \(statements)")
        let numbered = "INSERT INTO t (name) SELECT unnest($1::text[]) RETURNING name"
        let insertName = try #require(statements[numbered], "with numbered placeholders")
        #expect(insertName == PostgresConnection.statementName(numbered))

        // Another connection names each statement the same.
        let other = try PostgresConnection(url: database.url)
        #expect(try insert(["d"], on: other) == ["d"])
        #expect(try prepared(on: other) == statements)

        // The server forgets one of three: that round trip fails, and not as unavailable.
        try connection.executeScript("DEALLOCATE \(insertName)")
        do {
            _ = try insert(["lost"], on: connection)
            Issue.record("the server forgot the insert")
        } catch let error as PostgresError {
            #expect(error.isMissingPreparedStatement)
            #expect(!error.isUnavailable)
        }
        if connection.isInTransaction { try connection.executeScript("ROLLBACK") }
        #expect(try insert(["e"], on: connection) == ["e"], "prepared again, the two the session kept taken as they are")
        #expect(try prepared(on: connection) == statements)

        // A session that has a statement of the name already (as another client of a pooler
        // may have left it) has this statement: it is used as it is.
        let third = try PostgresConnection(url: database.url)
        try third.executeScript("PREPARE \(insertName) AS \(numbered)")
        #expect(try insert(["f"], on: third) == ["f"])
        #expect(try third.fetchAll("SELECT name FROM t ORDER BY id").map { try $0.decode("name", as: String.self) } == ["a", "b", "c", "d", "e", "f"])
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
