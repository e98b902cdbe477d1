import BouncerLocalization
import Foundation
import HTTPServer
import Testing
@testable import BouncerApplication
@testable import BouncerService

/// Every problem the service answers with has its detail in every bundled locale.
@Suite struct ProblemDetailsTests {
    /// Every `error.*` text (titles and details): in every locale, with the English text's
    /// placeholders, and a translation rather than a copy of the English.
    @Test(arguments: BundledStrings.all.keys.sorted())
    func everyProblemTextIsTranslated(locale: String) throws {
        let strings = try #require(BundledStrings.all[locale])
        let problemKeys = BundledStrings.keys.filter { $0.hasPrefix("error.") }
        #expect(problemKeys.count > 180)
        for key in problemKeys {
            let english = try #require(BundledStrings.en[key])
            guard let text = strings[key] else {
                Issue.record("\(locale) has no \(key)")
                continue
            }
            #expect(FormatPlaceholders.placeholders(in: text) == FormatPlaceholders.placeholders(in: english), "\(locale) \(key): \(text)")
            if locale != "en", key.hasSuffix(".detail") || key.hasPrefix("error.detail.") {
                #expect(text != english, "\(locale) \(key) is the English text")
            }
        }
    }

    /// Reads the service's sources: each problem constructed with a literal code names a detail
    /// key that exists (`.keyed("…")`, `key: "…"`), or its code has `error.<code>.detail` and
    /// the English text there is the detail thrown.
    @Test func everyThrowSiteHasATranslatedDetail() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        var checked = 0
        var keysNamed = Set<String>()
        for module in ["HTTPServer", "BouncerApplication", "BouncerService", "BouncerModeration", "BouncerDomain"] {
            let directory = sources.appendingPathComponent(module)
            let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            #expect(!files.isEmpty, "\(module) has Swift files")
            for file in files {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                let scanner = SourceScanner(text)
                // A pattern's reason names its key within `pattern.`; elsewhere a key has a dot
                // (`field.required`), which tells it from the other literals of a call.
                let isPattern = file.hasSuffix("PatternCompiler.swift")
                for key in scanner.namedKeys() where isPattern || (key.contains(".") && !key.hasSuffix(".") && !key.contains("\\(")) {
                    keysNamed.insert(isPattern ? "pattern." + key : key)
                }
                for site in scanner.problemSites() {
                    checked += 1
                    if site.keyed { continue }
                    if Self.untranslated.contains(site.code) { continue }
                    let key = "error.\(site.code).detail"
                    guard let english = BundledStrings.en[key] else {
                        Issue.record("\(module)/\(file): a `\(site.code)` problem has no detail key and there is no \(key)")
                        continue
                    }
                    if let detail = site.detailTemplate {
                        #expect(Self.shape(english) == Self.shape(detail),
                                "\(module)/\(file): `\(site.code)` throws \"\(detail)\" but \(key) is \"\(english)\": name its own key")
                    }
                }
            }
        }
        #expect(checked > 150, "the scan found the throw sites (\(checked))")
        for key in keysNamed.sorted() {
            #expect(BundledStrings.en["error.detail.\(key)"] != nil, "error.detail.\(key) is named in the sources but has no text")
        }
    }

    /// Codes whose detail is not a text of the catalog. `invalid_override`: several refused
    /// texts are listed as they are, in English (one alone has its key).
    static let untranslated: Set<String> = ["invalid_override"]

    /// A detail with each placeholder or interpolation as `%@`, to compare an English text with
    /// the detail a throw site writes.
    static func shape(_ text: String) -> String {
        var result = ""
        var characters = Array(text)[...]
        while let first = characters.first {
            if first == "\\", characters.dropFirst().first == "(" {
                var depth = 0
                while let character = characters.popFirst() {
                    if character == "(" { depth += 1 }
                    if character == ")" { depth -= 1; if depth == 0 { break } }
                }
                result += "%@"
                continue
            }
            result.append(first)
            characters = characters.dropFirst()
        }
        return result.replacingOccurrences(of: #"%(\d+\$)?l?[@dius]"#, with: "%@", options: .regularExpression)
    }

    @Test func aKeyedDetailComesInTheRequestsLanguage() throws {
        let catalog = Catalog()
        let german = try #require(catalog.choice(for: "de"))
        let error = HTTPError.badRequest("invalid_field", "`note` is longer than 1000 characters.").keyed("field.too_long", "note", 1000)
        #expect(LocalizedProblemRenderer.detail(error, in: german) == "`note` ist länger als 1000 Zeichen.")
        #expect(LocalizedProblemRenderer.detail(error, in: catalog.defaultChoice) == error.detail)

        // A key of its own never falls back to the code's text, which is another detail's.
        let other = HTTPError.badRequest("invalid_json", "The request body is empty; JSON was expected.").keyed("json.empty")
        #expect(LocalizedProblemRenderer.detail(other, in: german) == "Der Anfragetext ist leer; JSON wurde erwartet.")
        // Values that do not fit the text leave the English detail.
        let unfit = HTTPError.badRequest("invalid_field", "`x` is longer than 3 characters.").keyed("field.too_long", "x")
        #expect(LocalizedProblemRenderer.detail(unfit, in: german) == unfit.detail)

        // A position before the detail stays, in every language.
        let inner = HTTPError.badRequest("invalid_field", "`kind` is required.").keyed("field.missing", "kind")
        let positioned = inner.prefixed("rules[2]: ")
        #expect(positioned.detail == "rules[2]: `kind` is required.")
        #expect(LocalizedProblemRenderer.detail(positioned, in: german) == "rules[2]: `kind` ist erforderlich.")
        #expect(LocalizedProblemRenderer.detail(positioned, in: catalog.defaultChoice) == positioned.detail)

        let missing = HTTPError(.notFound, code: "message_not_found", detail: "There is no such message.")
        #expect(LocalizedProblemRenderer.detail(missing, in: german) == "Diese Nachricht gibt es nicht.")
    }

    /// A refused override's text, with its key, is the English detail thrown.
    @Test func eachRefusedOverrideHasItsText() throws {
        let violations: [OverrideRules.Violation] = [
            .unknownKey("nope"), .tooLong("message.bounce.title"),
            .placeholderMismatch(key: "error.forbidden.detail", expected: "%@"), .placeholderMismatch(key: "message.bounce.title", expected: ""),
        ]
        for violation in violations {
            let english = try #require(BundledStrings.en["error.detail.override.\(violation.detailKey)"])
            #expect(FormatPlaceholders.format(english, violation.detailArguments) == violation.description + ".")
        }
    }
}

/// Just enough of Swift's lexical structure to find problem constructors and the string
/// literals in them: strings (with interpolations that nest strings), comments, parentheses.
struct SourceScanner {
    struct Site {
        var code: String
        /// The detail as written when it is one literal (interpolations as `\(…)`).
        var detailTemplate: String?
        var keyed: Bool
    }

    let text: [Character]
    init(_ text: String) { self.text = Array(text) }

    static let constructors = ["HTTPError(", ".badRequest(", ".notFound(", "HTTPParseError(", ".bad("]

    /// Every literal given as a detail key: `.keyed("a")`, `.keyed(x ? "a" : "b")`, `key: "a"`.
    func namedKeys() -> [String] {
        var keys: [String] = []
        for marker in [".keyed(", "key: "] {
            var index = 0
            while let found = find(marker, from: index) {
                index = found + marker.count
                if marker == "key: " {
                    if index < text.count, text[index] == "\"", let literal = literal(at: index) { keys.append(literal.value) }
                    continue
                }
                let end = closingParenthesis(from: index - 1) ?? index
                // The first argument: literals before the first top-level comma.
                var cursor = index
                var depth = 0
                while cursor < end {
                    let character = text[cursor]
                    if character == "\"", let literal = literal(at: cursor) {
                        if depth == 0 { keys.append(literal.value) }
                        cursor = literal.end
                        continue
                    }
                    if character == "(" || character == "[" { depth += 1 }
                    if character == ")" || character == "]" { depth -= 1 }
                    if character == ",", depth == 0 { break }
                    cursor += 1
                }
            }
        }
        return keys.filter { !$0.isEmpty && !$0.contains(" ") }
    }

    func problemSites() -> [Site] {
        var sites: [Site] = []
        for marker in Self.constructors {
            var index = 0
            while let found = find(marker, from: index) {
                index = found + marker.count
                // A definition (`func badRequest(`), not a use.
                let before = String(text[max(0, found - 12)..<found])
                if before.hasSuffix("func ") || before.hasSuffix("init") { continue }
                guard let end = closingParenthesis(from: index - 1) else { continue }
                var literals: [(value: String, end: Int)] = []
                var cursor = index
                while cursor < end {
                    if text[cursor] == "\"", let literal = literal(at: cursor) {
                        literals.append(literal)
                        cursor = literal.end
                    } else {
                        cursor += 1
                    }
                }
                guard let code = literals.first?.value, code.allSatisfy({ $0.isLowercase || $0 == "_" }), !code.isEmpty else { continue }
                let call = String(text[index..<end])
                var after = end + 1
                while after < text.count, text[after].isWhitespace { after += 1 }
                let keyed = call.contains("key: ") || String(text[after..<min(text.count, after + 7)]) == ".keyed("
                var detail: String?
                if literals.count >= 2 {
                    var next = literals[1].end
                    while next < end, text[next].isWhitespace { next += 1 }
                    if next >= end || text[next] == "," { detail = literals[1].value }
                }
                sites.append(Site(code: code, detailTemplate: detail, keyed: keyed))
            }
        }
        return sites
    }

    private func find(_ marker: String, from start: Int) -> Int? {
        let pattern = Array(marker)
        var index = start
        while index + pattern.count <= text.count {
            if text[index] == "/", index + 1 < text.count, text[index + 1] == "/" {
                while index < text.count, text[index] != "\n" { index += 1 }
                continue
            }
            if text[index] == "\"", let literal = literal(at: index) {
                index = literal.end
                continue
            }
            if Array(text[index..<index + pattern.count]) == pattern { return index }
            index += 1
        }
        return nil
    }

    /// The index of the `)` closing the `(` at `open`.
    private func closingParenthesis(from open: Int) -> Int? {
        var depth = 0
        var index = open
        while index < text.count {
            let character = text[index]
            if character == "\"", let literal = literal(at: index) {
                index = literal.end
                continue
            }
            if character == "(" { depth += 1 }
            if character == ")" {
                depth -= 1
                if depth == 0 { return index }
            }
            index += 1
        }
        return nil
    }

    /// The string literal starting at `start` (its text with escapes undone and interpolations
    /// kept as written) and the index after it.
    private func literal(at start: Int) -> (value: String, end: Int)? {
        guard start < text.count, text[start] == "\"" else { return nil }
        if start + 2 < text.count, text[start + 1] == "\"", text[start + 2] == "\"" { return nil }
        var value = ""
        var index = start + 1
        while index < text.count {
            let character = text[index]
            if character == "\"" { return (value, index + 1) }
            if character == "\n" { return nil }
            if character == "\\", index + 1 < text.count {
                let next = text[index + 1]
                if next == "(" {
                    guard let close = closingParenthesis(from: index + 1) else { return nil }
                    value += String(text[index...close])
                    index = close + 1
                    continue
                }
                value.append(next == "n" ? "\n" : next)
                index += 2
                continue
            }
            value.append(character)
            index += 1
        }
        return nil
    }
}
