import Foundation
import Testing
import TestSupport
@testable import BouncerSQLite
@testable import BouncerStore

/// The review queue's read of open flags goes through the index of open flags alone, on a store
/// as the service makes it (no statistics: SQLite's planner then weighs indexes by their terms).
@Suite struct FlagQueryPlanTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theQueuesOpenFlagsAreReadFromTheirCoveringIndex() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.path("plan.sqlite3"), migrations: try Migration.load(directory: Self.repository.appendingPathComponent("migrations")))
        defer { store.close() }
        let database = try SQLiteDatabase(path: directory.path("plan.sqlite3"), mode: .readOnly)
        #expect(try database.fetchAll("SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'").isEmpty)
        for messages in [1, 50] {
            let plan = try database.fetchAll("EXPLAIN QUERY PLAN " + SQLiteStore.openFlagsSQL(messages: messages),
                                             (0..<messages).map { .text("m\($0)") })
                .compactMap { try $0.decodeIfPresent("detail", as: String.self) }
            #expect(plan.contains("SEARCH f USING COVERING INDEX flags_open_by_message (message_id=?)"), "\(plan)")
            #expect(!plan.contains { $0.contains("flags_open_by_reason") || $0.contains("SCAN f") }, "\(plan)")
        }
    }
}
