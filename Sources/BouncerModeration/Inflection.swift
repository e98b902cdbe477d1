/// English inflections of a listed word that a `word` rule also matches when inflections are on
/// (Stream's plural check, and more): `-s`, `-es` after s, x, z, ch and sh, `-ing`, `-ed` and
/// `-er`, and for a word that ends in e, `-s`, `-d`, `-r` and `-ing` in place of the e (`rape`:
/// `rapes`, `raped`, `raper`, `raping`). A doubled last consonant needs nothing more: the words
/// form writes each run of a letter once (`shitting` is `shiting` there).
enum Inflection {
    private static let suffixes: [[UInt8]] = ["s", "es", "ing", "ed", "er", "d", "r"].map { Array($0.utf8) }

    /// Where the inflection of `literal` (a word in the words form) that `words[end...]` holds ends,
    /// if it holds one followed by the end of a word. The suffix's letters must each stand once,
    /// so `assess` is not `ass` + `es`.
    static func end(of literal: [UInt8], in text: NormalizedText, at end: Int) -> Int? {
        for suffix in suffixes where takes(literal, suffix) {
            let suffixEnd = end + suffix.count
            guard suffixEnd <= text.words.count else { continue }
            var matches = true
            for offset in 0..<suffix.count where text.words[end + offset] != suffix[offset] || text.runs[end + offset] != 1 {
                matches = false
                break
            }
            if matches && (suffixEnd == text.words.count || text.words[suffixEnd] == 32) { return suffixEnd }
        }
        return nil
    }

    /// The forms of a word that need a literal of their own: an e-word's `-ing` (`raping`).
    static func extraForms(of word: String) -> [String] {
        guard word.count > 2, word.hasSuffix("e"), word.unicodeScalars.allSatisfy({ $0.isASCII }) else { return [] }
        return [String(word.dropLast()) + "ing"]
    }

    /// The ways a masked word's letters split into a stem and a suffix (`f*cking`: `f*ck` + `ing`),
    /// so the stem can be matched against a listed base word that `takes` the suffix.
    static func stems(of pattern: [UInt8]) -> [(stemLength: Int, suffix: [UInt8])] {
        suffixes.compactMap { suffix in
            guard pattern.count > suffix.count + 1, Array(pattern.suffix(suffix.count)) == suffix else { return nil }
            return (pattern.count - suffix.count, suffix)
        }
    }

    /// Whether `literal` takes `suffix`: `-es` only after a hissing sound, `-d` and `-r` only after
    /// an e, and `-ing`, `-ed`, `-er` only after another letter (an e-word's `-ing` is a literal
    /// of its own, see `extraForms`).
    static func takes(_ literal: [UInt8], _ suffix: [UInt8]) -> Bool {
        guard let last = literal.last, let first = suffix.first else { return false }
        let endsInE = last == UInt8(ascii: "e")
        if suffix.count == 1 { return first == UInt8(ascii: "s") || endsInE }  // -s; -d, -r
        if suffix == esSuffix {
            let beforeLast = literal.count >= 2 ? literal[literal.count - 2] : 0
            return last == UInt8(ascii: "s") || last == UInt8(ascii: "x") || last == UInt8(ascii: "z")
                || (last == UInt8(ascii: "h") && (beforeLast == UInt8(ascii: "c") || beforeLast == UInt8(ascii: "s")))
        }
        return !endsInE
    }

    private static let esSuffix: [UInt8] = Array("es".utf8)
}
