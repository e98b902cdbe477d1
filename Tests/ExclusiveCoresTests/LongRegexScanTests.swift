import BouncerDomain
import Testing
@testable import BouncerModeration

/// Vectorscan 5.4.9 aborts the whole process when a block-mode scan for match starts runs over 255
/// bytes or more, for these ordinary shapes (see `Database.regexMode`). Each must check a long
/// message, and report the exact leftmost start of what it finds.
@Suite struct LongRegexScanTests {
    /// The shapes that aborted, and shapes that did not, all of which must keep working.
    static let shapes = [
        "(x|xx)*y", "(a|aa)*b", "(a|aa)+b", "(ab|abab)*c", "(xy|xyxy)+z", "[a-z]+xy", ".*ab",
        "ab.*cd", "x{2,}y", #"\bxx\w*"#, "(a|ab)*c", "[a-z]+coin",
    ]

    static func ruleSet(_ pattern: String) throws -> CompiledRuleSet {
        try CompiledRuleSet.compile([RuleDefinition(id: "r", name: "r", kind: .regex, pattern: pattern, action: .bounce)])
    }

    @Test(arguments: shapes, [300, 5000, 20_000])
    func longTextOfOneLetterIsChecked(pattern: String, length: Int) throws {
        let set = try Self.ruleSet(pattern)
        for letter in ["a", "x"] {
            // Reaching the next line at all is the point: the abort took the test runner with it.
            let verdict = set.check(String(repeating: letter, count: length))
            for match in verdict.rules.flatMap(\.matched) {
                #expect(match.start >= 0 && match.start < match.end && match.end <= length)
            }
        }
    }

    @Test(arguments: [300, 5000])
    func matchStartsStayExactFarFromTheEnd(length: Int) throws {
        // The leftmost start lies `length` characters before the end: far beyond one 254-byte piece.
        let text = String(repeating: "q", count: length) + "coin and more"
        let verdict = try Self.ruleSet("[a-z]+coin").check(text)
        let match = try #require(verdict.rules.first?.matched.first)
        #expect(match.start == 0)
        #expect(match.end == length + 4)
        #expect(match.utf16End == length + 4)

        let anchored = try Self.ruleSet(".*ab$").check(String(repeating: "é", count: length) + "ab")
        let anchoredMatch = try #require(anchored.rules.first?.matched.first)
        #expect(anchoredMatch.start == 0 && anchoredMatch.end == length + 2, "a match that ends where the text ends")
    }

    @Test func matchesAcrossPieceBoundariesAreFoundWhole() throws {
        // Every offset of the needle around the 254-byte pieces the text is handed over in.
        let set = try Self.ruleSet(#"\bneedle\d+\b"#)
        for prefix in 240...270 {
            let text = String(repeating: "a", count: prefix) + " needle12345 tail"
            let match = try #require(set.check(text).rules.first?.matched.first, "prefix \(prefix)")
            #expect(match.text == "needle12345", "prefix \(prefix)")
            #expect(match.start == prefix + 1, "prefix \(prefix)")
        }
    }

    @Test func aTextWithMoreMatchesThanTheLimitIsJudgedOnTheFirst() throws {
        let text = String(repeating: "ab ", count: 6000)
        let verdict = try Self.ruleSet("ab").check(text)
        let matched = try #require(verdict.rules.first?.matched)
        #expect(matched.count == CompiledRuleSet.maxReportedSpans, "the first spans are reported")
        #expect(matched.first?.start == 0)
        #expect(matched.last?.start == 3 * (CompiledRuleSet.maxReportedSpans - 1))
    }

    /// Thousands of matches, overlapping: every one masks, the first few are reported, and the
    /// work is the text's length and the spans', not their product (found by fuzzing: a check of
    /// 6,000 characters with 4,000 matches once took a second).
    @Test func manyOverlappingMatchesAreMaskedAndReportedInLinearTime() throws {
        let set = try CompiledRuleSet.compile([
            RuleDefinition(id: "words", kind: .regex, pattern: #"\w+"#, action: .maskFlag),
            RuleDefinition(id: "tail", kind: .regex, pattern: "[a-z]+z", action: .maskFlag),
            RuleDefinition(id: "keep", kind: .allow, pattern: "keep", action: nil),
        ])
        let text = String(repeating: "ab cd keep ", count: 400) + String(repeating: "y", count: 300) + "z"  // 3,502 matches: under maxMatches
        let verdict = set.check(text)
        #expect(verdict.action == .maskFlag)
        for rule in verdict.rules { #expect(rule.matched.count <= CompiledRuleSet.maxReportedSpans) }
        let expected = String(repeating: "** ** keep ", count: 400) + String(repeating: "*", count: 301)
        #expect(verdict.maskedText == expected)
    }
}
