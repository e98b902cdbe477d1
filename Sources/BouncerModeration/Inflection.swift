/// Inflections of a listed word that a `word` rule also matches when inflections are on (Stream's
/// plural check, and more): `-s`, `-es` after s, x, z, ch and sh, `-ing`, `-ed` and `-er`, and for
/// a word that ends in e, `-s`, `-d`, `-r`, `-n` and `-ing` in place of the e (`rape`: `rapes`,
/// `raped`, `raper`, `raping`; German `Hure`: `Huren`). A doubled last consonant needs nothing
/// more: the words form writes each run of a letter once (`shitting` is `shiting` there). Beyond
/// English, where it costs English nothing: the Spanish plural `-es` after l, n, r, d and j
/// (`cabrones`, `imbéciles`), and a few forms of verbs in -ar and -en (`follando`, `wichst`).
///
/// No literal is added for an inflection: the listed word's literal is found, and what follows it
/// is read. An e-word's literal is its stem (`rap`), so `raping` is found too; the e is then
/// required after it, unless `-ing` follows.
enum Inflection {
    private static let suffixes: [[UInt8]] = ["s", "es", "ing", "ed", "er", "d", "r", "n"].map { Array($0.utf8) }
    private static let ing: [UInt8] = Array("ing".utf8)
    private static let e = UInt8(ascii: "e")

    /// Whether a word rule's literal (in the words form) is matched by its stem: it ends in one e.
    static func dropsE(_ literal: [UInt8], runs: [UInt16]) -> Bool {
        literal.count > 2 && literal.last == e && runs.last == 1
    }

    /// Where the inflection of a word ending in `last` (after `beforeLast`) that `words[end...]`
    /// holds ends, if it holds one followed by the end of a word. The suffix's letters must each
    /// stand once, so `assess` is not `ass` + `es`.
    static func end(afterWordEndingIn beforeLast: UInt8, _ last: UInt8, in text: NormalizedText, at end: Int) -> Int? {
        for suffix in suffixes where takes(beforeLast, last, suffix) {
            if let suffixEnd = Self.end(of: suffix, in: text, at: end) { return suffixEnd }
        }
        return nil
    }

    /// Where the e-word whose stem ends at `end` ends: after its e, with `-s`, `-d` or `-r`, or
    /// after `-ing` in the e's place.
    static func end(afterStem stem: [UInt8], in text: NormalizedText, at end: Int) -> Int? {
        let words = text.words
        if end < words.count && words[end] == e {
            let afterE = end + 1
            if afterE == words.count || words[afterE] == 32 { return afterE }
            if let inflected = Self.end(afterWordEndingIn: stem.last ?? 0, e, in: text, at: afterE) { return inflected }
        }
        return Self.end(of: ing, in: text, at: end)
    }

    /// Where `suffix` ends if `words[end...]` holds it, each letter once, and then a word's end.
    private static func end(of suffix: [UInt8], in text: NormalizedText, at end: Int) -> Int? {
        let suffixEnd = end + suffix.count
        guard suffixEnd <= text.words.count else { return nil }
        for offset in 0..<suffix.count where text.words[end + offset] != suffix[offset] || text.wordBytes[end + offset].run != 1 {
            return nil
        }
        return suffixEnd == text.words.count || text.words[suffixEnd] == 32 ? suffixEnd : nil
    }

    /// The ways a masked word's letters split into a stem and a suffix (`f*cking`: `f*ck` + `ing`),
    /// so the stem can be matched against a listed base word that `takes` the suffix (or, for
    /// `-ing`, an e-word without its e).
    static func stems(of pattern: [UInt8]) -> [(stemLength: Int, suffix: [UInt8])] {
        suffixes.compactMap { suffix in
            guard pattern.count > suffix.count + 1, Array(pattern.suffix(suffix.count)) == suffix else { return nil }
            return (pattern.count - suffix.count, suffix)
        }
    }

    static func isIng(_ suffix: [UInt8]) -> Bool { suffix == ing }

    /// The forms of a verb that need a literal of their own, being more than a suffix: Spanish
    /// -ar verbs' `-ando` and `-ado` (`follar`: `follando`), German -en verbs' `-t`, `-st` and
    /// `-e` (`wichsen`: `wichst`). Few words of a list end so, and none of these forms is English.
    static func extraForms(of word: String) -> [String] {
        guard word.count >= 5, word.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic }) else { return [] }
        if word.hasSuffix("ar") {
            let stem = word.dropLast(2)
            return [stem + "ando", stem + "ado"]
        }
        if word.hasSuffix("en") && word.count >= 6 {
            let stem = word.dropLast(2)
            return [stem + "t", stem + "st", stem + "e"]
        }
        return []
    }

    /// Whether a word whose last letters are `beforeLast`, `last` takes `suffix`: `-es` only after a
    /// hissing sound (or l, n, r, d, j: Spanish), `-d`, `-r` and `-n` only after an e, and `-ing`,
    /// `-ed`, `-er` only after another letter (an e-word's `-ing` replaces its e: see
    /// `end(afterStem:in:at:)`).
    static func takes(_ beforeLast: UInt8, _ last: UInt8, _ suffix: [UInt8]) -> Bool {
        guard let first = suffix.first else { return false }
        let endsInE = last == e
        if suffix.count == 1 { return first == UInt8(ascii: "s") || endsInE }  // -s; -d, -r
        if suffix.count == 2 && first == e && suffix[1] == UInt8(ascii: "s") {
            return "sxzlnrdj".utf8.contains(last)
                || (last == UInt8(ascii: "h") && (beforeLast == UInt8(ascii: "c") || beforeLast == UInt8(ascii: "s")))
        }
        return !endsInE
    }

    static func takes(_ word: [UInt8], _ suffix: [UInt8]) -> Bool {
        guard let last = word.last else { return false }
        return takes(word.count >= 2 ? word[word.count - 2] : 0, last, suffix)
    }
}
