import BouncerStore
import Dispatch
import Foundation
import Locking
import Testing
import TestSupport
@testable import BouncerPostgres

@Suite struct PostgresMigratorTests {
    static let migrations = [
        Migration(version: 1, name: "first", sql: "CREATE TABLE a (id INTEGER PRIMARY KEY);"),
        Migration(version: 2, name: "second", sql: "ALTER TABLE a ADD COLUMN name TEXT; INSERT INTO a VALUES (1, 'one');"),
    ]

    @Test func eachMigrationIsAppliedOnceAndRecorded() throws {
        let database = try PostgresTestDatabase()
        let connection = try PostgresConnection(url: database.url)
        let migrator = PostgresMigrator(migrations: Self.migrations)
        #expect(try migrator.migrate(connection).map(\.version) == [1, 2])
        #expect(try migrator.migrate(connection).isEmpty)
        #expect(try migrator.status(of: connection).map(\.state) == [.applied, .applied])
        #expect(try connection.fetchValue("SELECT count(*) FROM a", as: Int.self) == 1)
    }

    @Test func aFailingMigrationLeavesNothingBehind() throws {
        let database = try PostgresTestDatabase()
        let connection = try PostgresConnection(url: database.url)
        let broken = Self.migrations + [Migration(version: 3, name: "broken", sql: "CREATE TABLE b (x INTEGER); SELECT nothing_here;")]
        #expect(throws: MigrationError.self) { try PostgresMigrator(migrations: broken).migrate(connection) }
        #expect(try connection.fetchValue("SELECT count(*) FROM information_schema.tables WHERE table_name = 'b'", as: Int.self) == 0)
        #expect(try PostgresMigrator(migrations: broken).status(of: connection).map(\.state) == [.applied, .applied, .pending])
    }

    @Test func anAppliedMigrationThatChangedIsRefused() throws {
        let database = try PostgresTestDatabase()
        let connection = try PostgresConnection(url: database.url)
        try PostgresMigrator(migrations: Self.migrations).migrate(connection)
        var changed = Self.migrations
        changed[1].sql += " -- edited"
        #expect(throws: MigrationError.changedAfterApplied(version: 2, fileName: "0002_second.sql")) {
            try PostgresMigrator(migrations: changed).migrate(connection)
        }
    }

    @Test func instancesStartingAtOnceApplyEachMigrationOnce() throws {
        let database = try PostgresTestDatabase()
        let applied = Locked<[Int]>([])
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let connection = try PostgresConnection(url: database.url)
                let done = try PostgresMigrator(migrations: Self.migrations).migrate(connection)
                applied.withLock { $0 += done.map(\.version) }
            } catch {
                failures.withLock { $0.append(String(describing: error)) }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(applied.withLock { $0 }.sorted() == [1, 2])
    }
}
