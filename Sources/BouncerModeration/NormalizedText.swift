/// A message as the matcher sees it, in two forms, each byte of which remembers which characters
/// of the original it came from (so a match can be reported in the original's offsets).
///
/// - `folded`: compatibility forms, case, diacritics, invisible characters and look-alike letters
///   folded (`Ｐаyраl` -> `paypal`), everything else kept. Regex, domain and email rules match it.
/// - `words`: `folded` with common leetspeak read as letters (`sh1t`, `@ss`), single letters
///   spread out by separators joined (`f.u.c.k`), every run of other characters a single space,
///   and each run of one repeated letter written once, with its length kept in `runs`
///   (`fuuuck` -> `fuck`). Markup inside a word is read first (`f<b>u</b>ck`, `sh&#105;t`).
///   Word and phrase rules match it, whole words only.
public struct NormalizedText: Sendable {
    public let original: String
    /// The original's characters, by the indexes the origin arrays use.
    let scalarCount: Int

    public internal(set) var folded: [UInt8] = []
    /// For each byte of `folded`, the index of the original character it came from.
    var foldedOrigin: [Int32] = []

    public internal(set) var words: [UInt8] = []
    /// For each byte of `words`, the original characters it covers and its run: one array, not
    /// one for each, as every message sent makes them.
    var wordBytes: [WordByte] = []
    /// Whether the text has a symbol that may stand for a letter inside a word (`f*ck`): only
    /// then are masked words looked for.
    var hasMaskSymbols = false

    public init(_ text: String) {
        original = text
        var text = text
        // Most chat messages are ASCII: fold those byte by byte, without decoding characters,
        // in one pass that lowers the case and notes whether any byte was not ASCII.
        let ascii: [UInt8]? = text.withUTF8 { utf8 in
            var high: UInt8 = 0
            let lowered = [UInt8](unsafeUninitializedCapacity: utf8.count) { buffer, count in
                for index in 0..<utf8.count {
                    let byte = utf8[index]
                    high |= byte
                    buffer[index] = byte &- 65 < 26 ? byte | 0x20 : byte
                }
                count = utf8.count
            }
            return high < 0x80 ? lowered : nil
        }
        if let ascii {
            folded = ascii
            foldedOrigin = [Int32](unsafeUninitializedCapacity: ascii.count) { buffer, count in
                for index in 0..<ascii.count { buffer[index] = Int32(truncatingIfNeeded: index) }
                count = ascii.count
            }
            scalarCount = ascii.count
        } else {
            var count = 0
            folded.reserveCapacity(text.utf8.count)
            foldedOrigin.reserveCapacity(text.utf8.count)
            for scalar in text.unicodeScalars {
                Self.fold(scalar, index: Int32(count), into: &folded, origin: &foldedOrigin)
                count += 1
            }
            scalarCount = count
        }
        // The two arrays it reads, not the whole text: a copy of that would retain every array.
        WordsBuilder.build(folded: folded, foldedOrigin: foldedOrigin, into: &self)
    }

    /// Folds one character (see the type's documentation).
    @inline(__always)
    static func fold(_ scalar: Unicode.Scalar, index: Int32, into bytes: inout [UInt8], origin: inout [Int32]) {
        let value = scalar.value
        if value < 0x80 {
            var byte = UInt8(value)
            if byte >= 65 && byte <= 90 { byte |= 0x20 }
            bytes.append(byte)
            origin.append(index)
            return
        }
        if let replacement = FoldingTable.map[value] {
            for byte in replacement {
                bytes.append(byte)
                origin.append(index)
            }
            return
        }
        let properties = scalar.properties
        if properties.isDefaultIgnorableCodePoint { return }
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .spacingMark, .format, .control:
            return
        default:
            break
        }
        for byte in properties.lowercaseMapping.utf8 {
            bytes.append(byte)
            origin.append(index)
        }
    }

    /// For each byte of `words`, where the original characters it covers start and end.
    var wordsStart: [Int32] { wordBytes.map(\.start) }
    var wordsEnd: [Int32] { wordBytes.map(\.end) }
    /// How many times each byte of `words` stood repeated (1 for most).
    var runs: [UInt16] { wordBytes.map(\.run) }

    /// The original characters `start..<end` with their offsets in scalars and UTF-16 units.
    func span(scalars start: Int, _ end: Int) -> MatchSpan { SpanReader(original).span(start, end) }
}

/// What one byte of a text's `words` stands for.
struct WordByte: Sendable, Equatable {
    /// The original characters it covers: `start..<end`.
    var start: Int32
    var end: Int32
    /// How many times it stood repeated (1 for most).
    var run: UInt16
}

/// Spans of one original text, many of them: its characters and their UTF-16 offsets are found
/// once, so each span costs its own length, not a walk from the text's start (4,000 matches in a
/// 6,000-character text would otherwise walk 24 million characters).
struct SpanReader {
    let scalars: [Unicode.Scalar]
    /// `utf16[i]`: UTF-16 units before character `i`.
    let utf16: [Int]

    init(_ original: String) {
        scalars = Array(original.unicodeScalars)
        var offsets = [Int](repeating: 0, count: scalars.count + 1)
        for (index, scalar) in scalars.enumerated() { offsets[index + 1] = offsets[index] + scalar.utf16.count }
        utf16 = offsets
    }

    func span(_ start: Int, _ end: Int) -> MatchSpan {
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars[start..<end])
        return MatchSpan(text: String(text), start: start, end: end, utf16Start: utf16[start], utf16End: utf16[end])
    }
}

/// Where a rule matched, in the original text: scalar offsets (end exclusive) and UTF-16 offsets.
public struct MatchSpan: Sendable, Equatable, Hashable, Codable {
    public var text: String
    public var start: Int
    public var end: Int
    public var utf16Start: Int
    public var utf16End: Int

    public init(text: String, start: Int, end: Int, utf16Start: Int, utf16End: Int) {
        self.text = text
        self.start = start
        self.end = end
        self.utf16Start = utf16Start
        self.utf16End = utf16End
    }

    enum CodingKeys: String, CodingKey {
        case text, start, end
        case utf16Start = "utf16_start"
        case utf16End = "utf16_end"
    }
}
