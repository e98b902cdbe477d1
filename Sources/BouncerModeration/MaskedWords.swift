/// Words with letters masked by symbols: `f*ck`, `f@ck`, `sh#t`, `f***`, `f*cking`. A literal
/// matcher cannot see them (the symbol could be any letter), so a text that has such a word is
/// matched a second way: each masked word against the listed words of its length and first
/// letter, a symbol standing for any one letter.
///
/// What counts as a masked word, so that ordinary text is not read as one:
/// - it starts with a letter (or a leetspeak digit) and has at least one ASCII letter;
/// - `*` and `#` may mask letters anywhere after the first; `@`, `!`, `$`, `%` and `?` only between
///   two other characters of the word (a word followed by `!` or `?` is a sentence's end);
/// - it is 3 to 32 characters long, touches no letter beyond ASCII, and is no part of an address
///   (`a@b.example`), a path, or code in backticks;
/// - digits in it are read as leetspeak (`f*ck1ng`), and a 1 as an i or an l (`bu11shit`).
struct MaskedWords: Sendable {
    /// A listed word as it is spelt (`ass`, not the words form's `as`), and the entry it belongs to.
    struct Listed: Sendable {
        var letters: [UInt8]
        var entry: Int
        var inflects: Bool
    }

    static let minLength = 3
    static let maxLength = 32

    /// Listed words by length and first letter.
    private var listed: [Int: [Listed]] = [:]

    var isEmpty: Bool { listed.isEmpty }

    private static func key(length: Int, first: UInt8) -> Int { length << 8 | Int(first) }

    mutating func add(_ word: Listed) {
        guard word.letters.count >= Self.minLength, word.letters.count <= Self.maxLength,
              word.letters.allSatisfy({ $0 &- 97 < 26 }) else { return }
        listed[Self.key(length: word.letters.count, first: word.letters[0]), default: []].append(word)
    }

    @inline(__always) static func isMask(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "*"), UInt8(ascii: "#"), UInt8(ascii: "@"), UInt8(ascii: "!"), UInt8(ascii: "$"),
             UInt8(ascii: "%"), UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }

    /// Masks that may end a word (`f***`); the others only stand between two of its characters.
    @inline(__always) private static func mayEndWord(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "*") || byte == UInt8(ascii: "#") }

    /// Every listed word a masked word of `folded` may be: (entry, start, end) in `folded` bytes.
    func matches(in folded: [UInt8]) -> [(entry: Int, start: Int, end: Int)] {
        var found: [(entry: Int, start: Int, end: Int)] = []
        var inCode = false
        var index = 0
        while index < folded.count {
            let byte = folded[index]
            if byte == UInt8(ascii: "`") { inCode.toggle() }
            guard !inCode, Self.isWordByte(byte), !Self.isMask(byte) else {
                index += 1
                continue
            }
            var end = index
            while end < folded.count, Self.isWordByte(folded[end]) { end += 1 }
            let runEnd = end
            while end > index, Self.isMask(folded[end - 1]), !Self.mayEndWord(folded[end - 1]) { end -= 1 }
            if Self.standsAlone(folded, index, runEnd), let pattern = Self.pattern(folded[index..<end]) {
                for entry in candidates(pattern) { found.append((entry, index, end)) }
            }
            index = runEnd
        }
        return found
    }

    @inline(__always) private static func isWordByte(_ byte: UInt8) -> Bool { byte &- 97 < 26 || byte &- 48 < 10 || isMask(byte) }

    /// Not part of an address, a path or a word with letters beyond ASCII.
    private static func standsAlone(_ text: [UInt8], _ start: Int, _ end: Int) -> Bool {
        if start > 0 {
            let before = text[start - 1]
            if before >= 0x80 || before == UInt8(ascii: ".") || before == UInt8(ascii: "/") || before == UInt8(ascii: "\\")
                || before == UInt8(ascii: "_") { return false }
        }
        if end < text.count {
            let after = text[end]
            if after >= 0x80 || after == UInt8(ascii: "/") || after == UInt8(ascii: "\\") || after == UInt8(ascii: "_") { return false }
            if after == UInt8(ascii: "."), end + 1 < text.count, text[end + 1] &- 97 < 26 { return false }
        }
        return true
    }

    /// Pattern bytes that stand for more than one letter.
    static let anyLetter: UInt8 = 0
    static let iOrL: UInt8 = 1

    /// The word's letters with `anyLetter` for each mask and `iOrL` for each 1, or nil when it is
    /// no masked word.
    private static func pattern(_ word: ArraySlice<UInt8>) -> [UInt8]? {
        guard word.count >= minLength, word.count <= maxLength else { return nil }
        var pattern: [UInt8] = []
        pattern.reserveCapacity(word.count)
        var masks = 0, letters = 0
        for byte in word {
            if isMask(byte) {
                masks += 1
                pattern.append(anyLetter)
            } else if byte == UInt8(ascii: "1") {
                masks += 1
                pattern.append(iOrL)
            } else if byte &- 48 < 10 {
                pattern.append(WordsBuilder.digitLetters[Int(byte - 48)])
            } else {
                letters += 1
                pattern.append(byte)
            }
        }
        guard masks > 0, letters > 0, pattern[0] > iOrL else { return nil }
        return pattern
    }

    /// The entries whose listed word the pattern may be, whole or inflected.
    private func candidates(_ pattern: [UInt8]) -> [Int] {
        var entries: [Int] = []
        for word in listed[Self.key(length: pattern.count, first: pattern[0])] ?? [] where Self.fits(pattern[...], word.letters) {
            entries.append(word.entry)
        }
        for (stemLength, suffix) in Inflection.stems(of: pattern) where pattern[..<stemLength].contains(where: { $0 <= Self.iOrL }) {
            for word in listed[Self.key(length: stemLength, first: pattern[0])] ?? []
            where word.inflects && Inflection.takes(word.letters, suffix) && Self.fits(pattern[..<stemLength], word.letters) {
                entries.append(word.entry)
            }
            // An e-word's -ing replaces its e (`r*ping`).
            guard Inflection.isIng(suffix) else { continue }
            for word in listed[Self.key(length: stemLength + 1, first: pattern[0])] ?? []
            where word.inflects && word.letters.last == UInt8(ascii: "e") && Self.fits(pattern[..<stemLength], word.letters) {
                entries.append(word.entry)
            }
        }
        return entries
    }

    @inline(__always) private static func fits(_ pattern: ArraySlice<UInt8>, _ letters: [UInt8]) -> Bool {
        var offset = 0
        for byte in pattern {
            let letter = letters[offset]
            switch byte {
            case anyLetter: break
            case iOrL: guard letter == UInt8(ascii: "i") || letter == UInt8(ascii: "l") else { return false }
            default: guard byte == letter else { return false }
            }
            offset += 1
        }
        return true
    }
}
