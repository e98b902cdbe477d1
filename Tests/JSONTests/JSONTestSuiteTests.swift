import Foundation
import Testing
@testable import JSON

/// The strict parser against JSONTestSuite's parsing cases, the public conformance suite for JSON
/// parsers (`scripts/json-test-suite.sh` fetches them; `make test` passes their folder in
/// `BOUNCER_JSON_TEST_SUITE`). `y_` cases must be accepted, `n_` cases refused; `i_` cases leave
/// the choice to the parser, whose answer must still be one of the two, and is listed below.
private let suiteFolder = ProcessInfo.processInfo.environment["BOUNCER_JSON_TEST_SUITE"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }

@Suite(.enabled(if: suiteFolder != nil, "BOUNCER_JSON_TEST_SUITE names no folder (scripts/json-test-suite.sh fetches it)"))
struct JSONTestSuiteTests {
    static let folder = suiteFolder

    /// The implementation-defined cases this parser accepts (at a depth limit of 512, where the
    /// service's own is lower); it refuses the rest of them. Integers of any length are kept as
    /// written, and an exponent that underflows reads as zero; numbers past the double's range
    /// are refused (every reader would see infinity), as are byte order marks, invalid UTF-8,
    /// other encodings and lone surrogates in strings.
    static let acceptedImplementationDefined: Set<String> = [
        "i_number_double_huge_neg_exp.json", "i_number_real_underflow.json", "i_number_too_big_neg_int.json", "i_number_too_big_pos_int.json",
        "i_number_very_big_negative_int.json", "i_structure_500_nested_arrays.json",
    ]

    /// Valid JSON that Bouncer refuses on purpose, and why. RFC 8259 says names "SHOULD be
    /// unique" and leaves duplicates' meaning open: a token or a body read one way here and
    /// another way by a proxy or a client library is how a claim or a field is smuggled.
    static let deliberatelyRefused: [String: String] = [
        "y_object_duplicated_key.json": "duplicate member",
        "y_object_duplicated_key_and_value.json": "duplicate member",
    ]

    static func cases() throws -> [(name: String, bytes: [UInt8])] {
        guard let folder else { return [] }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { ($0, Array(try Data(contentsOf: folder.appendingPathComponent($0)))) }
    }

    static func parses(_ bytes: [UInt8]) -> JSONValue? {
        try? StrictJSONParser.parse(bytes, maxDepth: 512)
    }

    @Test func everyCaseIsAnsweredAsTheSuiteSays() throws {
        let cases = try Self.cases()
        #expect(cases.count >= 300, "the suite has 318 parsing cases; found \(cases.count)")
        var accepted = 0, refused = 0
        for (name, bytes) in cases {
            let value = Self.parses(bytes)
            switch name.prefix(2) {
            case "y_" where Self.deliberatelyRefused[name] != nil:
                #expect(value == nil, "\(name) is refused on purpose: \(Self.deliberatelyRefused[name]!)")
            case "y_":
                #expect(value != nil, "\(name) must be accepted")
                accepted += 1
            case "n_":
                #expect(value == nil, "\(name) must be refused")
                refused += 1
            case "i_":
                #expect((value != nil) == Self.acceptedImplementationDefined.contains(name),
                        "\(name): \(value == nil ? "refused" : "accepted"), not as listed")
            default:
                Issue.record("\(name) is of no kind the suite names")
            }
        }
        #expect(accepted >= 90 && refused >= 180, "accepted \(accepted), refused \(refused)")
    }

    /// What the parser accepts it writes back as the same value, and writes that the same again.
    @Test func everyAcceptedCaseRoundTrips() throws {
        for (name, bytes) in try Self.cases() {
            guard let value = Self.parses(bytes) else { continue }
            var written: [UInt8] = []
            value.write(to: &written)
            let again = Self.parses(written)
            #expect(again == value, "\(name) written as \(String(decoding: written, as: UTF8.self))")
            var rewritten: [UInt8] = []
            again?.write(to: &rewritten)
            #expect(rewritten == written, "\(name)")
        }
    }
}
