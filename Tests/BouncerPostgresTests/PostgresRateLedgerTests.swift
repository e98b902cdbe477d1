import BouncerDomain
import BouncerStore
import Foundation
import Testing
import TestSupport
@testable import BouncerPostgres

/// The rate rules' marks that instances share: found across instances, and a ledger that cannot
/// reach its database fails the record with that error (the send fails 503), never answers as if
/// the sender had sent nothing before.
@Suite struct PostgresRateLedgerTests {
    static func mark(_ user: String, keys: [UInt64]) -> RateMark {
        RateMark(userID: user, ruleID: "flood", keys: keys, weight: 1, sketch: [], at: Date().timeIntervalSince1970, window: 60)
    }

    static func record(_ ledger: any RateLedger, _ marks: [RateMark]) async -> Result<[[EarlierMark]], any Error> {
        await withCheckedContinuation { continuation in ledger.record(marks) { continuation.resume(returning: $0) } }
    }

    @Test func marksAreFoundAcrossInstances() async throws {
        let database = try PostgresTestDatabase()
        let migrations = try Migration.load(directory: ManyWritersTests.migrations)
        let instances = try (0..<2).map { _ in try PostgresStore(url: database.url, migrations: migrations) }
        defer { for instance in instances { instance.close() } }
        let first = try #require(instances[0].sharedRateLedger), second = try #require(instances[1].sharedRateLedger)
        #expect(try await Self.record(first, [Self.mark("alice", keys: [1, 2])]).get() == [[]])
        let kin = try await Self.record(second, [Self.mark("alice", keys: [2, 3])]).get()
        #expect(kin.first?.count == 1, "the mark made through the other instance")
        #expect(try await Self.record(second, [Self.mark("bob", keys: [2])]).get() == [[]], "another sender's marks are not his")
    }

    @Test func aLedgerWhoseDatabaseIsNotThereFailsUnavailable() async {
        let ledger = PostgresRateLedger(url: "postgres://nobody@127.0.0.1:1/none?connect_timeout=2")
        switch await Self.record(ledger, [Self.mark("alice", keys: [1])]) {
        case .success(let found):
            Issue.record("nothing listens on port 1, yet the ledger answered \(found)")
        case .failure(let error):
            #expect((error as? PostgresError)?.isUnavailable == true, "\(error)")
        }
    }
}
