import BouncerDomain
import BouncerModeration
import Foundation
import Testing
import TestSupport
@testable import BouncerApplication
@testable import BouncerService

/// Compiled rule databases kept in files: loaded when they match, compiled again when they do not
/// or cannot be trusted, and the verdicts the same either way.
@Suite struct CompiledDatabaseFilesTests {
    static let rules: [RuleDefinition] = (0..<300).map {
        RuleDefinition(id: "w\($0)", kind: .word, pattern: "badword\($0)", action: .bounce)
    } + [
        RuleDefinition(id: "r", kind: .regex, pattern: #"\b\d{3}-\d{4}\b"#, action: .flag),
        RuleDefinition(id: "d", kind: .domain, pattern: "scam.example", action: .remove),
        RuleDefinition(id: "f", kind: .word, pattern: "fuck", action: .bounce),
    ]
    static let texts = ["a badword17 here", "call 555-1234", "see scam.example now", "f*cking", "nothing at all", "badword299s"]

    static func verdicts(_ set: CompiledRuleSet) -> [String] {
        texts.map { text in
            let verdict = set.check(text)
            return "\(verdict.action?.rawValue ?? "none") " + verdict.rules.map { "\($0.ruleID)\($0.matched.map { "\($0.start)-\($0.end)" })" }.joined()
        }
    }

    static func files(_ directory: URL) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "hsdb" }.sorted { $0.path < $1.path }
    }

    @Test func aSecondCompileLoadsEveryDatabaseAndJudgesTheSame() throws {
        let temporary = try TemporaryDirectory()
        let store = CompiledDatabaseFiles(directory: temporary.url.appendingPathComponent("rules-cache"))
        let compiled = try CompiledRuleSet.compile(Self.rules, store: store)
        #expect(compiled.databasesLoaded.loaded == 0)
        #expect(Self.files(store.directory).count == compiled.databasesLoaded.total)

        let loaded = try CompiledRuleSet.compile(Self.rules, store: store)
        #expect(loaded.databasesLoaded.loaded == loaded.databasesLoaded.total)
        #expect(Self.verdicts(loaded) == Self.verdicts(compiled))
        #expect(Self.verdicts(loaded) == Self.verdicts(try CompiledRuleSet.compile(Self.rules)))
    }

    @Test func changedRulesOrSettingsAreCompiledAgain() throws {
        let temporary = try TemporaryDirectory()
        let store = CompiledDatabaseFiles(directory: temporary.url)
        let first = try CompiledRuleSet.compile(Self.rules, store: store)
        var changed = Self.rules
        changed[5].pattern = "otherword"
        let second = try CompiledRuleSet.compile(changed, store: store)
        // Only the words database changed: the regex and domain databases are the same ones.
        #expect(second.databasesLoaded.loaded == second.databasesLoaded.total - 1)
        #expect(second.check("otherword").action == .bounce)
        #expect(second.check("badword5").action == nil)
        #expect(first.check("badword5").action == .bounce)
        // Inflections add a literal for e-words: another words database.
        let withE = Self.rules + [RuleDefinition(id: "e", kind: .word, pattern: "rape", action: .bounce)]
        _ = try CompiledRuleSet.compile(withE, inflections: true, store: store)
        #expect(try CompiledRuleSet.compile(withE, inflections: false, store: store).databasesLoaded.loaded < 4)
    }

    @Test func aDamagedFileIsIgnoredAndWrittenAgain() throws {
        let temporary = try TemporaryDirectory()
        let store = CompiledDatabaseFiles(directory: temporary.url)
        let reference = Self.verdicts(try CompiledRuleSet.compile(Self.rules, store: store))
        let files = Self.files(temporary.url)
        #expect(files.count == 4)

        // A flipped byte (checksum), a torn file, a file of another kind.
        var flipped = try Data(contentsOf: files[0])
        flipped[flipped.count / 2] ^= 0xFF
        try flipped.write(to: files[0])
        try Data(try Data(contentsOf: files[1]).prefix(20)).write(to: files[1])
        try Data("not a database".utf8).write(to: files[2])
        let rebuilt = try CompiledRuleSet.compile(Self.rules, store: store)
        #expect(rebuilt.databasesLoaded.loaded == 1)
        #expect(Self.verdicts(rebuilt) == reference)
        #expect(try CompiledRuleSet.compile(Self.rules, store: store).databasesLoaded.loaded == 4, "written again")
    }

    @Test func aFileWhoseChecksumHoldsButWhichTheLibraryRefusesIsCompiledAgain() throws {
        let temporary = try TemporaryDirectory()
        let store = CompiledDatabaseFiles(directory: temporary.url)
        let reference = Self.verdicts(try CompiledRuleSet.compile(Self.rules, store: store))
        // What another library version or CPU would leave: well-formed files the library cannot use.
        for file in Self.files(temporary.url) {
            let garbage = [UInt8](repeating: 0x5A, count: 4096)
            try Data(CompiledDatabaseFiles.magic + CompiledDatabaseFiles.sha256(garbage) + garbage).write(to: file)
        }
        let rebuilt = try CompiledRuleSet.compile(Self.rules, store: store)
        #expect(rebuilt.databasesLoaded.loaded == 0)
        #expect(Self.verdicts(rebuilt) == reference)
    }

    @Test func anUnwritableDirectoryOnlyCostsACompile() throws {
        let temporary = try TemporaryDirectory()
        try temporary.write("file", "x")
        // A directory that cannot be made: a file stands where it would be.
        let store = CompiledDatabaseFiles(directory: temporary.url.appendingPathComponent("file"))
        let reference = Self.verdicts(try CompiledRuleSet.compile(Self.rules))
        #expect(Self.verdicts(try CompiledRuleSet.compile(Self.rules, store: store)) == reference)
        #expect(try CompiledRuleSet.compile(Self.rules, store: store).databasesLoaded.loaded == 0)
    }

    @Test func onlyTheMostRecentlyUsedFilesAreKept() throws {
        let temporary = try TemporaryDirectory()
        let store = CompiledDatabaseFiles(directory: temporary.url)
        // A different word each round (digits would be read as leetspeak, and repeated letters as one).
        let letters = Array("abcdefghijklmnopqrstuvwy")
        func rule(_ round: Int) -> [RuleDefinition] {
            [RuleDefinition(id: "w", kind: .word, pattern: "w\(letters[round % 24])x\(letters[round / 24])z", action: .bounce)]
        }
        let rounds = CompiledDatabaseFiles.filesKept + 10
        for round in 0..<rounds { _ = try CompiledRuleSet.compile(rule(round), store: store) }
        #expect(Self.files(temporary.url).count == CompiledDatabaseFiles.filesKept)
        #expect(try CompiledRuleSet.compile(rule(rounds - 1), store: store).databasesLoaded.loaded == 1)
        #expect(try CompiledRuleSet.compile(rule(0), store: store).databasesLoaded.loaded == 0, "the oldest was removed")
    }
}
