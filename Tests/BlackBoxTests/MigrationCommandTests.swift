import Foundation
import Testing
import TestSupport

@Suite(.oneInstance) struct MigrationCommandTests {
    /// A copy of the shipped migrations that a test may edit.
    /// Where the store under test takes its migrations from, in a copy of the directory:
    /// PostgreSQL's are in its `postgres/`.
    static let storeMigrations = TestStore.isPostgres ? "migrations/postgres" : "migrations"

    static func copyOfMigrations(into directory: TemporaryDirectory) throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("migrations")
        let target = directory.path("migrations")
        try FileManager.default.copyItem(atPath: source.path, toPath: target)
        return target
    }

    @Test func migrateAppliesReportsAndReRuns() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let migrations = try Self.copyOfMigrations(into: directory)
            let options = ["--data-dir", directory.path("data"), "--migrations-dir", migrations]
            let pending = try ServiceProcess.run(["migrate", "--status"] + options)
            #expect(pending.status == 0)
            #expect(pending.output.contains("0001 service_meta pending"))
            let first = try ServiceProcess.run(["migrate"] + options)
            #expect(first.status == 0)
            #expect(first.output.contains("applied 0001_service_meta.sql"))
            let again = try ServiceProcess.run(["migrate"] + options)
            #expect(again.status == 0 && again.output.contains("up to date"))
            let applied = try ServiceProcess.run(["migrate", "--status"] + options)
            #expect(applied.output.contains("0001 service_meta applied"))

            try directory.write(Self.storeMigrations + "/9999_later.sql", "CREATE TABLE later (id INTEGER PRIMARY KEY);")
            let later = try ServiceProcess.run(["migrate"] + options)
            #expect(later.output.contains("applied 9999_later.sql"))
        }
    }

    @Test func serveRefusesAChangedMigration() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let migrations = try Self.copyOfMigrations(into: directory)
            let options = ["--data-dir", directory.path("data"), "--migrations-dir", migrations]
            #expect(try ServiceProcess.run(["migrate"] + options).status == 0)
            let file = directory.path(Self.storeMigrations + "/0001_service_meta.sql")
            try (String(contentsOfFile: file, encoding: .utf8) + "\n-- edited\n").write(toFile: file, atomically: true, encoding: .utf8)
            #expect(throws: ServiceStartError.self) { _ = try ServiceProcess(arguments: options) }
            let refused = try ServiceProcess.run(["serve", "--port", "0"] + options)
            #expect(refused.status == 1)
            #expect(refused.output.contains("changed after it was applied"))
            let migrate = try ServiceProcess.run(["migrate"] + options)
            #expect(migrate.status == 1)
            #expect(migrate.output.contains("changed after it was applied"))
        }
    }

    @Test func serveRefusesAStoreNewerThanItself() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let migrations = try Self.copyOfMigrations(into: directory)
            let options = ["--data-dir", directory.path("data"), "--migrations-dir", migrations]
            try directory.write(Self.storeMigrations + "/9999_future.sql", "CREATE TABLE future (id INTEGER PRIMARY KEY);")
            #expect(try ServiceProcess.run(["migrate"] + options).status == 0)
            try FileManager.default.removeItem(atPath: directory.path(Self.storeMigrations + "/9999_future.sql"))
            let refused = try ServiceProcess.run(["serve", "--port", "0"] + options)
            #expect(refused.status == 1)
            #expect(refused.output.contains("newer release"))
        }
    }

    @Test func commandLineUsage() async throws {
        try await blocking {
            let version = try ServiceProcess.run(["--version"])
            #expect(version.status == 0 && version.output.hasPrefix("bouncer "))
            let help = try ServiceProcess.run(["--help"])
            #expect(help.status == 0 && help.output.contains("migrate"))
            let serveHelp = try ServiceProcess.run(["serve", "--help"])
            #expect(serveHelp.status == 0 && serveHelp.output.contains("BOUNCER_PORT"))
            let unknown = try ServiceProcess.run(["serve", "--no-such-flag"])
            #expect(unknown.status == 64 && unknown.output.contains("unknown option --no-such-flag"))
            let badPort = try ServiceProcess.run(["serve", "--port", "70000"])
            #expect(badPort.status == 64)
            let badCommand = try ServiceProcess.run(["frobnicate"])
            #expect(badCommand.status == 64)
        }
    }
}
