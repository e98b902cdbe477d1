import BouncerSQLite
import BouncerStore
import Foundation
import Testing
import TestSupport
@testable import BouncerPostgres

/// PostgreSQL's migrations (migrations/postgres) and SQLite's (migrations) must build the same
/// tables with the same columns, so the two stores cannot drift apart. The differences are
/// listed here, each with its reason.
@Suite struct SchemaParityTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Tables only one store has.
    static let sqliteOnly: Set = [
        // SQLite's channel index is a table written in batches; PostgreSQL indexes messages instead.
        "channel_messages", "channel_messages_progress",
    ]
    static let postgresOnly: Set = [
        // Send rates shared by instances; a SQLite store has one instance, which counts in memory.
        "send_rate_buckets",
        // Rate rules' marks shared by instances; one SQLite instance keeps them in memory.
        "rate_marks",
    ]

    struct Column: Equatable, CustomStringConvertible {
        var name: String
        var type: String
        var notNull: Bool
        var description: String { "\(name) \(type)\(notNull ? " NOT NULL" : "")" }
    }

    /// The one type class both stores share for a column: integer, text or bytes.
    static func typeClass(_ declared: String) -> String {
        let type = declared.lowercased()
        if type.contains("int") || type == "boolean" { return "integer" }
        if type.contains("text") || type.contains("char") { return "text" }
        if type == "blob" || type == "bytea" { return "bytes" }
        return type
    }

    static func sqliteSchema() throws -> [String: [Column]] {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path("parity.sqlite3"), migrations: try Migration.load(directory: repository.appendingPathComponent("migrations")))
        defer { store.close() }
        let database = try SQLiteDatabase(path: directory.path("parity.sqlite3"), mode: .readOnly)
        var tables: [String: [Column]] = [:]
        for table in try database.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
            let name: String = try table.decodeIfPresent("name") ?? ""
            tables[name] = try database.fetchAll("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?)", [.text(name)]).map { row in
                // A primary key column is never NULL in practice; SQLite only says so for INTEGER ones.
                Column(name: try row.decodeIfPresent("name") ?? "", type: typeClass(try row.decodeIfPresent("type") ?? ""),
                       notNull: try row.decode("notnull", as: Int.self) == 1 || row.decode("pk", as: Int.self) > 0)
            }.sorted { $0.name < $1.name }
        }
        return tables
    }

    static func postgresSchema(_ database: PostgresTestDatabase) throws -> [String: [Column]] {
        let connection = try PostgresConnection(url: database.url)
        try PostgresMigrator(migrations: try Migration.load(directory: repository.appendingPathComponent("migrations/postgres"))).migrate(connection)
        var tables: [String: [Column]] = [:]
        for row in try connection.fetchAll("""
            SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
             WHERE table_schema = 'public' ORDER BY table_name, column_name
            """) {
            let column = Column(name: try row.decodeIfPresent("column_name") ?? "", type: typeClass(try row.decodeIfPresent("data_type") ?? ""),
                                notNull: try row.decodeIfPresent("is_nullable", as: String.self) == "NO")
            tables[try row.decodeIfPresent("table_name") ?? "", default: []].append(column)
        }
        return tables
    }

    @Test func bothStoresHaveTheSameTablesAndColumns() throws {
        let database = try PostgresTestDatabase()
        let sqlite = try Self.sqliteSchema()
        let postgres = try Self.postgresSchema(database)
        #expect(Set(sqlite.keys).subtracting(Self.sqliteOnly) == Set(postgres.keys).subtracting(Self.postgresOnly))
        for table in Set(sqlite.keys).intersection(postgres.keys).sorted() {
            #expect(sqlite[table] == postgres[table], "\(table): SQLite \(sqlite[table] ?? []) and PostgreSQL \(postgres[table] ?? [])")
        }
    }

    @Test func bothStoresNumberTheirMigrationsAlike() throws {
        let sqlite = try Migration.load(directory: Self.repository.appendingPathComponent("migrations"))
        let postgres = try Migration.load(directory: Self.repository.appendingPathComponent("migrations/postgres"))
        #expect(sqlite.map(\.fileName) == postgres.map(\.fileName))
    }
}
