import BouncerDomain
import BouncerSQLite
import Testing
import TestSupport
@testable import BouncerApplication
@testable import BouncerService
@testable import BouncerStore

/// `Rules.apply` puts in force the newest version it is given, and reports only what it put in
/// force.
@Suite struct RulesApplyTests {
    static func snapshot(_ sequence: UInt64, words: Int) -> RuleSnapshot {
        RuleSnapshot(sequence: sequence, rules: (0..<words).map { index in
            StoredRule(RuleDefinition(id: "r\(sequence)-\(index)", kind: .word, pattern: "word\(index)x", action: .bounce),
                       createdAt: "", updatedAt: "", createdBy: "admin")
        })
    }

    /// Two versions compiled at once, the newer one first (the compile queue takes them in turn):
    /// the older is overtaken and not put in force, nor counted as the rules in force.
    @Test func aVersionOvertakenWhileItCompiledIsNeitherInForceNorReported() async throws {
        let directory = try TemporaryDirectory()
        var configuration = ServiceConfiguration()
        configuration.dataDirectory = directory.path("data")
        let store = try SQLiteStore(path: configuration.storePath, migrations: try loadMigrations(configuration))
        defer { store.close() }
        let metrics = Metrics.service()
        let rules = try await Rules(repository: store, logger: Logger(level: .error), metrics: metrics)
        // The newer version is large enough to compile for a while: the older one passes the
        // version check meanwhile and compiles after it.
        async let newer: Void = rules.apply(Self.snapshot(6, words: 3_000))
        try await Task.sleep(for: .milliseconds(20))
        async let older: Void = rules.apply(Self.snapshot(5, words: 7))
        _ = try await (newer, older)
        #expect(rules.version == 6)
        let lines = metrics.render().split(separator: "\n")
        #expect(lines.contains("bouncer_rules 3000"), "\(lines.filter { $0.hasPrefix("bouncer_rules ") })")
    }
}
