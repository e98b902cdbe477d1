/// The printf-style placeholders of a text (`%@`, `%d`, `%ld`, `%1$@`), as Apple's `.strings`
/// files and the SDKs' format calls use them, and filling them in.
public enum FormatPlaceholders {
    public struct Placeholder: Equatable, Hashable, Sendable, Comparable {
        /// 1-based argument position (explicit `%2$@`, or implicit by order).
        public var position: Int
        /// `@`, `d` (also for `i`, `u`), `f`, `s` or `x`.
        public var conversion: Character

        public static func < (lhs: Placeholder, rhs: Placeholder) -> Bool {
            (lhs.position, String(lhs.conversion)) < (rhs.position, String(rhs.conversion))
        }
    }

    enum Segment: Equatable {
        case literal(String)
        case placeholder(Placeholder)
    }

    private static let conversions: [Character: Character] = ["@": "@", "d": "d", "i": "d", "u": "d", "f": "f", "s": "s", "x": "x"]
    private static let lengthModifiers: Set<Character> = ["l", "h", "q", "z", "j", "t"]

    /// Every placeholder, in argument order. `%%` is a literal percent sign.
    public static func placeholders(in text: String) -> [Placeholder] {
        segments(text).compactMap { segment in
            if case .placeholder(let placeholder) = segment { return placeholder }
            return nil
        }.sorted()
    }

    /// Fills the placeholders with `arguments` (already text). A missing argument leaves nothing.
    public static func format(_ template: String, _ arguments: [String]) -> String {
        segments(template).map { segment in
            switch segment {
            case .literal(let text): text
            case .placeholder(let placeholder):
                placeholder.position <= arguments.count ? arguments[placeholder.position - 1] : ""
            }
        }.joined()
    }

    static func segments(_ text: String) -> [Segment] {
        var result: [Segment] = []
        var literal = ""
        var implicit = 0
        var rest = Substring(text)
        while let percent = rest.firstIndex(of: "%") {
            literal += rest[..<percent]
            rest = rest[rest.index(after: percent)...]
            if rest.first == "%" {
                literal += "%"
                rest = rest.dropFirst()
                continue
            }
            var cursor = rest
            let digits = cursor.prefix { $0.isASCIIDigit }
            var position: Int?
            if !digits.isEmpty, cursor.dropFirst(digits.count).first == "$", let explicit = Int(digits), explicit > 0 {
                position = explicit
                cursor = cursor.dropFirst(digits.count + 1)
            }
            cursor = cursor.drop { lengthModifiers.contains($0) }
            guard let character = cursor.first, let conversion = conversions[character] else {
                literal += "%"  // Not a placeholder: keep the sign as text.
                continue
            }
            if position == nil {
                implicit += 1
                position = implicit
            }
            if !literal.isEmpty { result.append(.literal(literal)) }
            literal = ""
            result.append(.placeholder(Placeholder(position: position!, conversion: conversion)))
            rest = cursor.dropFirst()
        }
        literal += rest
        if !literal.isEmpty { result.append(.literal(literal)) }
        return result
    }
}
