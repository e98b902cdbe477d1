/// Builds the `words` form of a `NormalizedText` from its `folded` form. This runs for every
/// message sent, so it works on buffers sized once up front rather than growing arrays.
enum WordsBuilder {
    /// Leetspeak digits, read as letters inside a token that has letters too: 0 o, 1 i, 3 e,
    /// 4 a, 5 s, 7 t, 8 b, 9 g (2 and 6 stay digits).
    static let digitLetters: [UInt8] = Array("oi2eas6tbg".utf8)

    /// Most separator bytes between two single letters that are still joined (`f . u`).
    static let maxJoinedSeparator = 3
    /// Fewest single letters in a row that are joined (`a b` stays two words; `f u c k` is one).
    static let minJoinedLetters = 3

    @inline(__always) static func isLetter(_ byte: UInt8) -> Bool { byte &- 97 < 26 || byte >= 0x80 }
    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte &- 48 < 10 }
    @inline(__always) static func isLeetDigit(_ byte: UInt8) -> Bool { isDigit(byte) && digitLetters[Int(byte &- 48)] != byte }
    /// The leetspeak symbols that may also stand alone between separators (`$.h.1.7`).
    @inline(__always) static func isLeetSymbol(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "$") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "!") || byte == UInt8(ascii: "|")
    }

    /// Whether the leetspeak symbols from `index` on (`$$` in `@$$hole`) run into a letter.
    @inline(__always) static func leetRunReachesLetter(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int) -> Bool {
        var position = index
        while position < bytes.count && position - index < 4 {
            let byte = bytes[position]
            if isLetter(byte) { return true }
            guard byte == UInt8(ascii: "$") || byte == UInt8(ascii: "@") else { return false }
            position += 1
        }
        return false
    }

    /// Symbols beyond ASCII read as the letter they resemble when they touch a letter (`fu©k`,
    /// `sh¡t`), by their UTF-8 bytes. They are not folded to letters in the `folded` form, where
    /// a regex may look for `€` or `©` as themselves.
    @inline(__always) static func symbolLetter(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int) -> (letter: UInt8, length: Int)? {
        let lead = bytes[index]
        if lead == 0xC2, index + 1 < bytes.count {
            switch bytes[index + 1] {
            case 0xA9, 0xA2: return (UInt8(ascii: "c"), 2)  // © ¢
            case 0xAE: return (UInt8(ascii: "r"), 2)        // ®
            case 0xA5: return (UInt8(ascii: "y"), 2)        // ¥
            case 0xA1: return (UInt8(ascii: "i"), 2)        // ¡
            default: return nil
            }
        }
        if lead == 0xE2, index + 2 < bytes.count {
            if bytes[index + 1] == 0x82 && bytes[index + 2] == 0xAC { return (UInt8(ascii: "e"), 3) }  // €
            if bytes[index + 1] == 0x80 && bytes[index + 2] == 0xA0 { return (UInt8(ascii: "t"), 3) }  // †
        }
        return nil
    }

    /// The words of the text, four numbers each in one flat buffer sized for the most a text can
    /// have (an array of structs would look its type up at run time on every message): the bytes
    /// `start..<end` of the leet-read buffer, the separator bytes after it, and flags: `lineBreak`
    /// when those include a line break, `loneSymbol` for a leetspeak symbol standing alone, which
    /// is a letter only among joined single letters.
    private struct Tokens {
        let fields: UnsafeMutableBufferPointer<Int32>
        private(set) var count = 0

        /// Tokens are at least one byte with a separator between them.
        static func capacity(forBytes count: Int) -> Int { (count + 1) / 2 + 1 }

        init(_ fields: UnsafeMutableBufferPointer<Int32>) { self.fields = fields }

        static let lineBreak: Int32 = 1
        static let loneSymbol: Int32 = 2
        /// The separators after the token are not only white space (`f.u`, not `f u`).
        static let punctuated: Int32 = 4

        @inline(__always) mutating func append(start: Int, end: Int, flags: Int32) {
            let base = count &* 4
            fields[base] = Int32(truncatingIfNeeded: start)
            fields[base &+ 1] = Int32(truncatingIfNeeded: end)
            fields[base &+ 2] = 0
            fields[base &+ 3] = flags
            count &+= 1
        }
        @inline(__always) mutating func addSeparatorToLast(_ byte: UInt8) {
            let base = (count &- 1) &* 4
            fields[base &+ 2] &+= 1
            if byte == 10 || byte == 13 { fields[base &+ 3] |= Self.lineBreak }
            if byte != 32 && byte != 9 && byte != 10 && byte != 13 { fields[base &+ 3] |= Self.punctuated }
        }
        @inline(__always) var lastEnd: Int { count == 0 ? -1 : Int(fields[(count &- 1) &* 4 &+ 1]) }
    }

    /// Where each byte pass 1 writes came from in the original, kept in the passes' scratch: pass 1
    /// records it, pass 2 reads it. Two kinds, so the common one costs one number a byte.
    private protocol Origins {
        /// Scratch numbers needed for `count` bytes.
        static func slots(_ count: Int) -> Int
        init(_ input: Self.Input, scratch: UnsafeMutablePointer<Int32>, count: Int)
        associatedtype Input
        /// Written byte `written` was read from position `position` of the text.
        func record(_ written: Int, from position: Int)
        func start(_ written: Int) -> Int32
        func end(_ written: Int) -> Int32
    }

    /// The folded text's bytes: each covers the one character it came from.
    private struct FoldedOrigins: Origins {
        let folding: UnsafeBufferPointer<Int32>
        let starts: UnsafeMutablePointer<Int32>
        static func slots(_ count: Int) -> Int { count }
        init(_ input: UnsafeBufferPointer<Int32>, scratch: UnsafeMutablePointer<Int32>, count: Int) {
            folding = input
            starts = scratch
        }
        @inline(__always) func record(_ written: Int, from position: Int) { starts[written] = folding[position] }
        @inline(__always) func start(_ written: Int) -> Int32 { starts[written] }
        @inline(__always) func end(_ written: Int) -> Int32 { starts[written] &+ 1 }
    }

    /// Bytes read out of markup: a character reference's cover all of it (`&#105;`).
    private struct DecodedOrigins: Origins {
        let input: MarkupDecoder.Spans
        let starts: UnsafeMutablePointer<Int32>
        let ends: UnsafeMutablePointer<Int32>
        static func slots(_ count: Int) -> Int { 2 * count }
        init(_ input: MarkupDecoder.Spans, scratch: UnsafeMutablePointer<Int32>, count: Int) {
            self.input = input
            starts = scratch
            ends = scratch + count
        }
        @inline(__always) func record(_ written: Int, from position: Int) {
            starts[written] = input.starts[position]
            ends[written] = input.ends[position]
        }
        @inline(__always) func start(_ written: Int) -> Int32 { starts[written] }
        @inline(__always) func end(_ written: Int) -> Int32 { ends[written] }
    }

    static func build(folded: [UInt8], foldedOrigin: [Int32], into result: inout NormalizedText) {
        if let decoded = MarkupDecoder.decode(folded, foldedOrigin) {
            decoded.bytes.withUnsafeBufferPointer { bytes in
                decoded.starts.withUnsafeBufferPointer { starts in
                    decoded.ends.withUnsafeBufferPointer { ends in
                        build(bytes, MarkupDecoder.Spans(starts: starts, ends: ends), DecodedOrigins.self, into: &result)
                    }
                }
            }
        } else {
            folded.withUnsafeBufferPointer { bytes in
                foldedOrigin.withUnsafeBufferPointer { starts in build(bytes, starts, FoldedOrigins.self, into: &result) }
            }
        }
    }

    private static func build<Map: Origins>(_ folded: UnsafeBufferPointer<UInt8>, _ input: Map.Input, _ map: Map.Type,
                                            into result: inout NormalizedText) {
        let count = folded.count
        guard count > 0 else { return }
        // The passes' scratch (the leet-read bytes, where each came from, the tokens) in one
        // temporary allocation (on the stack only for a short text): three arrays cost three
        // allocations, three type lookups and three zero fills for every message sent.
        let tokenCapacity = Tokens.capacity(forBytes: count) * 4
        let byteSlots = (count + 3) / 4
        let originSlots = Map.slots(count)
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: originSlots + tokenCapacity + byteSlots) { scratch in
            let base = scratch.baseAddress!
            let origins = Map(input, scratch: base, count: count)
            let fields = UnsafeMutableBufferPointer(start: base + originSlots, count: tokenCapacity)
            let bytes = UnsafeMutableRawPointer(base + originSlots + tokenCapacity).bindMemory(to: UInt8.self, capacity: count)
            let leetBytes = UnsafeMutableBufferPointer(start: bytes, count: count)
            var tokens = Tokens(fields)
            var sawMask = false
            let length = readLeetspeak(folded, into: leetBytes, origins, tokens: &tokens, sawMask: &sawMask)
            result.hasMaskSymbols = sawMask
            writeWords(UnsafeBufferPointer(leetBytes), origins, length: length,
                       tokenFields: UnsafeBufferPointer(fields), tokenCount: tokens.count, into: &result)
        }
    }

    /// Pass 1: reads leetspeak symbols and digits, and cuts the text into tokens. Returns the
    /// number of bytes written. `sawMask` tells whether a symbol that may mask a letter (`f*ck`)
    /// was seen, so the check looks for masked words only in the texts that have one.
    /// `origins` records, for each byte written, where the first byte it was read from came from.
    private static func readLeetspeak(_ folded: UnsafeBufferPointer<UInt8>, into bytes: UnsafeMutableBufferPointer<UInt8>,
                                      _ origins: some Origins, tokens: inout Tokens,
                                      sawMask: inout Bool) -> Int {
        var length = 0
        var tokenStart = -1
        var tokenHasLetter = false
        var tokenHasDigit = false
        var tokenFlags: Int32 = 0
        var index = 0
        @inline(__always) func write(_ byte: UInt8, from position: Int) {
            bytes[length] = byte
            origins.record(length, from: position)
            length &+= 1
        }
        while index <= folded.count {
            var byte: UInt8 = 32
            var isSeparator = true
            var width = 1  // input bytes the written byte stands for
            if index < folded.count {
                byte = folded[index]
                if isLetter(byte) {
                    isSeparator = false
                    tokenHasLetter = true
                    if byte >= 0xC2, let symbol = symbolLetter(folded, index) {
                        let previous = tokenStart >= 0 && isLetter(bytes[length - 1])
                        let next = index + symbol.length < folded.count && isLetter(folded[index + symbol.length])
                        if previous || next {
                            byte = symbol.letter
                            width = symbol.length
                        }
                    }
                } else if isDigit(byte) {
                    isSeparator = false
                    tokenHasDigit = true
                    // A 1 among letters may be an l as well as an i (`bu11shit`): masked words read both.
                    if byte == UInt8(ascii: "1") { sawMask = true }
                } else {
                    if MaskedWords.isMask(byte) { sawMask = true }
                    let previous = tokenStart >= 0 && isLetter(bytes[length - 1])
                    let next = index + 1 < folded.count && (isLetter(folded[index + 1]) || leetRunReachesLetter(folded, index + 1))
                    if byte == UInt8(ascii: "|"), index + 2 < folded.count, folded[index + 1] == UInt8(ascii: "_"),
                       folded[index + 2] == UInt8(ascii: "|"), previous || (index + 3 < folded.count && isLetter(folded[index + 3])) {
                        byte = UInt8(ascii: "u")  // `|_|`
                        width = 3
                    }
                    switch byte {
                    case UInt8(ascii: "u") where width == 3:
                        isSeparator = false
                    case UInt8(ascii: "@") where previous || next: byte = UInt8(ascii: "a"); isSeparator = false
                    case UInt8(ascii: "$") where previous || next: byte = UInt8(ascii: "s"); isSeparator = false
                    case UInt8(ascii: "!") where previous && next: byte = UInt8(ascii: "i"); isSeparator = false
                    case UInt8(ascii: "|") where previous && next: byte = UInt8(ascii: "l"); isSeparator = false
                    default: break
                    }
                    if !isSeparator {
                        tokenHasLetter = true
                    } else if tokenStart < 0, isLeetSymbol(byte),
                              index + 1 == folded.count || !(isLetter(folded[index + 1]) || isDigit(folded[index + 1])) {
                        // A symbol standing alone (`$` in `$.h.1.7`): a token of its own, which is
                        // a letter only if it is joined with single letters around it.
                        byte = byte == UInt8(ascii: "$") ? UInt8(ascii: "s") : byte == UInt8(ascii: "@") ? UInt8(ascii: "a")
                            : byte == UInt8(ascii: "!") ? UInt8(ascii: "i") : UInt8(ascii: "l")
                        isSeparator = false
                        tokenFlags = Tokens.loneSymbol
                    }
                }
            }
            if isSeparator {
                if tokenStart >= 0 {
                    // Digits are letters among two letters or more: `5h1t`, but not the road `A55`.
                    if tokenHasLetter && tokenHasDigit && (tokenStart..<length).count(where: { isLetter(bytes[$0]) }) >= 2 {
                        for position in tokenStart..<length where isDigit(bytes[position]) {
                            bytes[position] = digitLetters[Int(bytes[position] - 48)]
                        }
                    }
                    tokens.append(start: tokenStart, end: length, flags: tokenFlags)
                    tokenStart = -1
                    tokenHasLetter = false
                    tokenHasDigit = false
                    tokenFlags = 0
                }
                if index < folded.count, tokens.lastEnd == length {
                    tokens.addSeparatorToLast(byte)
                }
            } else {
                if tokenStart < 0 { tokenStart = length }
                write(byte, from: index)
                index &+= width
                // A lone symbol is a token of one byte: the separator after it closes it.
                if tokenFlags != 0 { continue }
                // Most of a text is letters in a row: copy the rest of such a run in a tight loop.
                // A letter changes none of the state above but `tokenHasLetter`. The lead bytes of
                // the symbols read as letters (`©`, `€`) go back to the loop above.
                while index < folded.count {
                    let next = folded[index]
                    guard next &- 97 < 26 || (next >= 0x80 && next != 0xC2 && next != 0xE2) else { break }
                    tokenHasLetter = true
                    write(next, from: index)
                    index &+= 1
                }
                continue
            }
            index &+= 1
        }
        return length
    }

    /// Pass 2: joins runs of single letters (with leetspeak digits and symbols among them, as in
    /// `$.h.1.7`), separates words by one space, writes each repeated letter once with its run
    /// length.
    /// `origins` says which original characters each byte of pass 1 covers.
    private static func writeWords(_ bytes: UnsafeBufferPointer<UInt8>, _ origins: some Origins, length: Int,
                                   tokenFields: UnsafeBufferPointer<Int32>, tokenCount: Int, into result: inout NormalizedText) {
        // Written straight into the two arrays' storage, which is then cut to what was written.
        let capacity = length + tokenCount
        var written = 0
        var spans: [WordByte] = []
        let words = [UInt8](unsafeUninitializedCapacity: capacity) { words, wordsCount in
        spans = [WordByte](unsafeUninitializedCapacity: capacity) { spans, spansCount in
            @inline(__always) func start(_ token: Int) -> Int { Int(tokenFields[token &* 4]) }
            @inline(__always) func end(_ token: Int) -> Int { Int(tokenFields[token &* 4 &+ 1]) }
            @inline(__always) func origin(_ position: Int) -> Int32 { origins.start(position) }
            @inline(__always) func originEnd(_ position: Int) -> Int32 { origins.end(position) }
            @inline(__always) func isLoneSymbol(_ token: Int) -> Bool { tokenFields[token &* 4 &+ 3] & Tokens.loneSymbol != 0 }
            // A single letter, leetspeak digit or symbol, which may be joined with its neighbours.
            @inline(__always) func isJoinable(_ token: Int) -> Bool {
                guard end(token) - start(token) == 1 else { return false }
                let byte = bytes[start(token)]
                return isLetter(byte) || isLeetDigit(byte) || isLoneSymbol(token)
            }
            @inline(__always) func isRealLetter(_ token: Int) -> Bool { isLetter(bytes[start(token)]) && !isLoneSymbol(token) }
            var index = 0
            while index < tokenCount {
                // A stretch of single letters with short separators, with a letter among them: one word.
                var last = index
                var letters = 0
                if isJoinable(index) {
                    letters = isRealLetter(index) ? 1 : 0
                    // The gaps are all of one kind: `a c.u.n.t` is `a` and `cunt`.
                let gapKind = tokenFields[index * 4 + 3] & Tokens.punctuated
                while last + 1 < tokenCount, isJoinable(last + 1),
                      Int(tokenFields[last * 4 + 2]) <= maxJoinedSeparator, tokenFields[last * 4 + 3] & Tokens.lineBreak == 0,
                      tokenFields[last * 4 + 3] & Tokens.punctuated == gapKind {
                        last += 1
                        if isRealLetter(last) { letters += 1 }
                    }
                }
                let joined = last - index + 1 >= minJoinedLetters && letters > 0
                if !joined {
                    last = index
                    // Alone, a leetspeak symbol is punctuation again.
                    if isLoneSymbol(index) {
                        index += 1
                        continue
                    }
                }
                if written > 0 {
                    // The space covers what lies between the two words. Two words can come from
                    // one character (`℀` folds to `a/c`): then it covers nothing, where that
                    // character starts, rather than a range that ends before it begins.
                    let next = origin(start(index))
                    words[written] = 32
                    spans[written] = WordByte(start: min(spans[written - 1].end, next), end: next, run: 1)
                    written += 1
                }
                let wordStart = written
                for tokenIndex in index...last {
                    var position = start(tokenIndex)
                    let tokenEnd = end(tokenIndex)
                    while position < tokenEnd {
                        var byte = bytes[position]
                        if joined && isDigit(byte) { byte = digitLetters[Int(byte - 48)] }
                        var runEnd = position + 1
                        if byte < 0x80 {
                            while runEnd < tokenEnd && bytes[runEnd] == byte { runEnd += 1 }
                        }
                        let run = runEnd - position
                        if byte < 0x80, written > wordStart, words[written - 1] == byte {
                            // The run goes on across joined letters (`f u u u c k`).
                            spans[written - 1].run = UInt16(min(Int(spans[written - 1].run) + run, Int(UInt16.max)))
                            spans[written - 1].end = originEnd(runEnd - 1)
                        } else {
                            words[written] = byte
                            spans[written] = WordByte(start: origin(position), end: originEnd(runEnd - 1), run: UInt16(min(run, Int(UInt16.max))))
                            written += 1
                        }
                        position = runEnd
                    }
                }
                index = last + 1
            }
        spansCount = written }
        wordsCount = written }
        result.words = words
        result.wordBytes = spans
    }
}
