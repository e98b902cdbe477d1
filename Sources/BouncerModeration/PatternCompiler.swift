import BouncerDomain
import CVectorscan

/// Why a rule's pattern cannot be used.
public struct PatternError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    /// The reason's text key (a problem's `error.detail.pattern.<key>`) and the values in it.
    public var key: String?
    public var arguments: [String] = []
    public var description: String { reason }
}

/// A rule's pattern prepared for matching: a literal for one of the two text forms, with the
/// checks vectorscan leaves to us (word boundaries, repeated letters), or a regular expression.
struct PreparedPattern: Sendable {
    enum Form: Sendable {
        /// A literal of the `words` form, with each byte's least run length, and which inflections
        /// may follow it in place of the right boundary.
        case words(literal: [UInt8], runs: [UInt16], leftBoundary: Bool, rightBoundary: Bool, inflection: WordInflection)
        /// A domain in the `folded` form; subdomains match too.
        case domain(literal: [UInt8])
        /// An address, or with `anyLocalPart` every address at the domain (`literal` is `@domain`).
        case email(literal: [UInt8], anyLocalPart: Bool)
        case regex(String)
    }

    var form: Form
}

/// How a word rule's literal meets inflections (see `Inflection`).
enum WordInflection: Sendable {
    case none
    /// The whole word: a suffix may follow it (`fuck`: `fucks`, `fucking`).
    case suffixes
    /// The word without its final e (`rap` for `rape`): the e must follow, or `-ing` in its place.
    case stemOfEWord
}

public enum PatternCompiler {
    public static let maxPatternLength = 512

    /// Checks that a rule's pattern can be used, or says why not.
    public static func validate(kind: RuleKind, pattern: String) throws(PatternError) {
        _ = try prepare(kind: kind, pattern: pattern)
    }

    /// Checks a rule's pattern and prepares it, or says why it cannot be used. `inflections`: a
    /// `word` rule also matches the word's inflections.
    static func prepare(kind: RuleKind, pattern: String, inflections: Bool = false) throws(PatternError) -> PreparedPattern {
        guard !kind.takesParams else { throw PatternError(reason: "a \(kind.rawValue) rule has no pattern", key: "no_pattern", arguments: [kind.rawValue]) }
        guard pattern.unicodeScalars.count <= maxPatternLength else {
            throw PatternError(reason: "the pattern is longer than \(maxPatternLength) characters", key: "too_long", arguments: [String(maxPatternLength)])
        }
        guard !pattern.trimmingCharacters().isEmpty else { throw PatternError(reason: "the pattern is empty", key: "empty") }
        switch kind {
        case .word, .phrase, .allow:
            if let letters = lettersOnly(pattern) {
                return wordsPattern(literal: letters.literal, runs: letters.runs, kind: kind, prefix: false, suffix: false,
                                    inflections: inflections)
            }
            var core = Substring(pattern.trimmingCharacters())
            let prefix = core.hasSuffix("*")
            let suffix = core.hasPrefix("*")
            if prefix { core = core.dropLast() }
            if suffix { core = core.dropFirst() }
            guard !core.contains("*") else {
                throw PatternError(reason: "`*` may stand only at the start or the end of a word", key: "star")
            }
            let normalized = NormalizedText(String(core))
            guard !normalized.words.isEmpty else { throw PatternError(reason: "the pattern has no letters or digits", key: "no_letters") }
            return wordsPattern(literal: normalized.words, runs: normalized.runs, kind: kind, prefix: prefix, suffix: suffix,
                                inflections: inflections)
        case .domain:
            return PreparedPattern(form: .domain(literal: try domainLiteral(pattern)))
        case .email:
            let text = pattern.trimmingCharacters().lowercased()
            let parts = text.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw PatternError(reason: "an email pattern is an address (a@b.example) or a domain's addresses (*@b.example)", key: "email")
            }
            let domain = try domainLiteral(String(parts[1]))
            if parts[0] == "*" {
                return PreparedPattern(form: .email(literal: Array("@".utf8) + domain, anyLocalPart: true))
            }
            guard parts[0].utf8.allSatisfy(EmailBoundary.isLocalPartByte) else {
                throw PatternError(reason: "the part before @ has characters an address cannot", key: "address")
            }
            return PreparedPattern(form: .email(literal: NormalizedText(String(parts[0])).folded + Array("@".utf8) + domain,
                                                anyLocalPart: false))
        case .regex:
            try checkRegex(pattern)
            return PreparedPattern(form: .regex(pattern))
        case .flood, .mentions, .links, .score:
            throw PatternError(reason: "a \(kind.rawValue) rule has no pattern", key: "no_pattern", arguments: [kind.rawValue])
        }
    }

    private static func wordsPattern(literal: [UInt8], runs: [UInt16], kind: RuleKind, prefix: Bool, suffix: Bool,
                                     inflections: Bool) -> PreparedPattern {
        var literal = literal, runs = runs
        var inflection = WordInflection.none
        if inflections && kind == .word && !prefix {
            inflection = .suffixes
            if Inflection.dropsE(literal, runs: runs) {
                inflection = .stemOfEWord
                literal.removeLast()
                runs.removeLast()
            }
        }
        return PreparedPattern(form: .words(literal: literal, runs: runs, leftBoundary: !suffix, rightBoundary: !prefix,
                                            inflection: inflection))
    }

    /// The words form of a pattern of ASCII letters alone (most of a word list), made directly:
    /// lower case, each run of a letter once with its length. The same as `NormalizedText` makes
    /// of it, without its allocations, for the 100,000 words a large list has.
    static func lettersOnly(_ pattern: String) -> (literal: [UInt8], runs: [UInt16])? {
        var literal: [UInt8] = [], runs: [UInt16] = []
        for byte in pattern.utf8 {
            let lower = byte | 0x20
            guard lower &- 97 < 26 else { return nil }
            if literal.last == lower && runs[runs.count - 1] < UInt16.max {
                runs[runs.count - 1] += 1
            } else {
                literal.append(lower)
                runs.append(1)
            }
        }
        return literal.isEmpty ? nil : (literal, runs)
    }

    /// A domain, lower case, without scheme, `www.` or path: `https://www.Example.com/x` is
    /// `example.com`.
    static func domainLiteral(_ pattern: String) throws(PatternError) -> [UInt8] {
        var text = Substring(pattern.trimmingCharacters().lowercased())
        for scheme in ["https://", "http://"] where text.hasPrefix(scheme) { text = text.dropFirst(scheme.count) }
        if text.hasPrefix("*.") { text = text.dropFirst(2) }
        if let slash = text.firstIndex(of: "/") { text = text[..<slash] }
        let folded = NormalizedText(String(text)).folded
        let labels = folded.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard folded.count <= 253, labels.count >= 2,
              labels.allSatisfy({ !$0.isEmpty && $0.count <= 63 && $0.allSatisfy(DomainBoundary.isLabelByte) }) else {
            throw PatternError(reason: "`\(pattern)` is not a domain like example.com", key: "domain", arguments: [pattern])
        }
        return folded
    }

    /// Compiles a regular expression alone, for its error: vectorscan refuses what it cannot
    /// match in linear time (back-references, look-around) with a reason.
    static func checkRegex(_ pattern: String) throws(PatternError) {
        var database: OpaquePointer?
        var error: UnsafeMutablePointer<hs_compile_error_t>?
        let status = hs_compile(pattern, CompiledRuleSet.regexFlags, Database.regexMode, nil, &database, &error)
        if status == HS_SUCCESS {
            hs_free_database(database)
            return
        }
        var message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "it does not compile"
        hs_free_compile_error(error)
        // A reason is a clause that callers end as they need: vectorscan's messages end in a period.
        while message.hasSuffix(".") { message.removeLast() }
        throw PatternError(reason: "the regular expression cannot be used: \(message)", key: "regex", arguments: [message])
    }
}

extension String {
    func trimmingCharacters() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}

enum DomainBoundary {
    static func isLabelByte(_ byte: UInt8) -> Bool {
        (byte >= 97 && byte <= 122) || (byte >= 48 && byte <= 57) || byte == UInt8(ascii: "-") || byte >= 0x80
    }

    /// A domain literal found at `start..<end` of `text` stands alone (or as a parent of a
    /// subdomain): not inside a longer label, not followed by more labels.
    static func isWhole(_ text: [UInt8], _ start: Int, _ end: Int) -> Bool {
        if start > 0 {
            let before = text[start - 1]
            if isLabelByte(before) { return false }
        }
        if end < text.count {
            let after = text[end]
            if isLabelByte(after) { return false }
            if after == UInt8(ascii: "."), end + 1 < text.count, isLabelByte(text[end + 1]) { return false }
        }
        return true
    }
}

enum EmailBoundary {
    static func isLocalPartByte(_ byte: UInt8) -> Bool {
        (byte >= 97 && byte <= 122) || (byte >= 48 && byte <= 57) || byte >= 0x80
            || "._%+-!#$&'*/=?^`{|}~".utf8.contains(byte)
    }
}
