import BouncerDomain
import BouncerSQLite
import Foundation
import Locking
import Testing
import TestSupport
@testable import BouncerApplication
@testable import BouncerService
@testable import BouncerStore

/// A dry run whose client has gone stops at its next page instead of scanning on for nobody
/// (for up to a minute, holding the one dry run an instance runs at a time).
@Suite struct DryRunClientGoneTests {
    static let messages = 2 * DryRunner.pageSize + 500

    static func store(_ directory: TemporaryDirectory) async throws -> SQLiteStore {
        var configuration = ServiceConfiguration()
        configuration.dataDirectory = directory.path("data")
        let store = try SQLiteStore(path: configuration.storePath, migrations: try loadMigrations(configuration))
        let group = DispatchGroup()
        let failures = Locked(0)
        for index in 0..<messages {
            let now = Timestamp.now()
            let message = StoredMessage(id: "m\(index)", channelID: "general", userID: "alice", text: "plain text \(index)", originalText: nil,
                                        state: .delivered, parentID: nil, custom: nil, moderation: nil, bounceAction: nil, flagged: false,
                                        edited: false, createdAt: now, updatedAt: now)
            group.enter()
            store.send(message, flags: [], sender: Viewer(userID: "alice", role: .user)) { result in
                if case .failure = result { failures.withLock { $0 += 1 } }
                group.leave()
            }
        }
        await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }
        #expect(failures.withLock { $0 } == 0)
        return store
    }

    @Test func aDryRunStopsAtItsNextPageOnceItsClientHasGone() async throws {
        let directory = try TemporaryDirectory()
        let store = try await Self.store(directory)
        defer { store.close() }
        let rules = try await Rules(repository: store, logger: Logger(level: .error), metrics: Metrics.service())
        let runner = DryRunner(rules: rules, classifier: Classifier(nil), history: store, logger: Logger(level: .error))
        let candidates: @Sendable () throws -> [RuleDefinition] = {
            [RuleDefinition(id: "dry-run-1", kind: .word, pattern: "plain", action: .flag)]
        }

        let whole = try await runner.run(candidates, filter: HistoryFilter(), limit: Self.messages)
        #expect(whole.scanned == Self.messages && whole.matched == Self.messages)

        // The client goes after the first page: the scan reads no second one.
        let checks = Locked(0)
        await #expect(throws: CancellationError.self) {
            _ = try await runner.run(candidates, filter: HistoryFilter(), limit: Self.messages, clientGone: {
                checks.withLock { checks in
                    checks += 1
                    return checks > 1
                }
            })
        }
        #expect(checks.withLock { $0 } == 2, "checked before each page, stopped before the second")
        // The one slot is free again at once.
        #expect(try await runner.run(candidates, filter: HistoryFilter(), limit: 10).scanned == 10)
    }
}
