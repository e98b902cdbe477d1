/// BCP 47 language tags as Bouncer handles them: validated, put in canonical case (`pt-BR`,
/// `zh-Hans`, `sr-Latn-RS`), and shortened one subtag at a time for fallback.
public enum LocaleTag {
    public static let maxLength = 35

    /// The tag in canonical case, or nil when it is not `language(-subtag)*` with 1-8 letters for
    /// the language and 1-8 letters or digits for each subtag.
    public static func canonical(_ tag: some StringProtocol) -> String? {
        guard !tag.isEmpty, tag.utf8.count <= maxLength else { return nil }
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (1...8).contains(language.count), language.allSatisfy(\.isASCIILetter) else { return nil }
        var result = language.lowercased()
        for (index, part) in parts.dropFirst().enumerated() {
            guard (1...8).contains(part.count), part.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit }) else { return nil }
            result += "-"
            if part.count == 4 && part.allSatisfy(\.isASCIILetter) && index == 0 {
                result += part.prefix(1).uppercased() + part.dropFirst().lowercased()  // script: Hans
            } else if part.count == 2 && part.allSatisfy(\.isASCIILetter) {
                result += part.uppercased()  // region: BR
            } else {
                result += part.lowercased()
            }
        }
        return result
    }

    /// `zh-Hant-TW`, `zh-Hant`, `zh`: the tag and each shorter one, longest first.
    public static func fallbacks(_ canonicalTag: String) -> [String] {
        var parts = canonicalTag.split(separator: "-")
        var result: [String] = []
        while !parts.isEmpty {
            result.append(parts.joined(separator: "-"))
            parts.removeLast()
        }
        return result
    }
}

extension Character {
    var isASCIILetter: Bool { isASCII && isLetter }
    var isASCIIDigit: Bool { isASCII && isNumber }
}
