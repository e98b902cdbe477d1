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

    /// The words of the text, four numbers each in one flat buffer sized for the most a text can
    /// have (an array of structs would look its type up at run time on every message): the bytes
    /// `start..<end` of the leet-read buffer, the separator bytes after it, and 1 when those
    /// include a line break.
    private struct Tokens {
        let fields: UnsafeMutableBufferPointer<Int32>
        private(set) var count = 0

        /// Tokens are at least one byte with a separator between them.
        static func capacity(forBytes count: Int) -> Int { (count + 1) / 2 + 1 }

        init(_ fields: UnsafeMutableBufferPointer<Int32>) { self.fields = fields }

        @inline(__always) mutating func append(start: Int, end: Int) {
            let base = count &* 4
            fields[base] = Int32(truncatingIfNeeded: start)
            fields[base &+ 1] = Int32(truncatingIfNeeded: end)
            fields[base &+ 2] = 0
            fields[base &+ 3] = 0
            count &+= 1
        }
        @inline(__always) mutating func addSeparatorToLast(lineBreak: Bool) {
            let base = (count &- 1) &* 4
            fields[base &+ 2] &+= 1
            if lineBreak { fields[base &+ 3] = 1 }
        }
        @inline(__always) var lastEnd: Int { count == 0 ? -1 : Int(fields[(count &- 1) &* 4 &+ 1]) }
    }

    static func build(from text: NormalizedText, into result: inout NormalizedText) {
        let count = text.folded.count
        guard count > 0 else { return }
        // The passes' scratch (the leet-read bytes, their origins, the tokens) in one temporary
        // allocation (on the stack only for a short text): three arrays cost three allocations,
        // three type lookups and three zero fills for every message sent.
        let tokenCapacity = Tokens.capacity(forBytes: count) * 4
        let byteSlots = (count + 3) / 4
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: count + tokenCapacity + byteSlots) { scratch in
            let base = scratch.baseAddress!
            let origin = UnsafeMutableBufferPointer(start: base, count: count)
            let fields = UnsafeMutableBufferPointer(start: base + count, count: tokenCapacity)
            let bytes = UnsafeMutableRawPointer(base + count + tokenCapacity).bindMemory(to: UInt8.self, capacity: count)
            let leetBytes = UnsafeMutableBufferPointer(start: bytes, count: count)
            var tokens = Tokens(fields)
            let length = text.folded.withUnsafeBufferPointer { folded in
                text.foldedOrigin.withUnsafeBufferPointer { folding in
                    readLeetspeak(folded, folding, into: leetBytes, origin, tokens: &tokens)
                }
            }
            writeWords(UnsafeBufferPointer(leetBytes), UnsafeBufferPointer(origin), length: length,
                       tokenFields: UnsafeBufferPointer(fields), tokenCount: tokens.count, into: &result)
        }
    }

    /// Pass 1: reads leetspeak symbols and digits, and cuts the text into tokens. Returns the
    /// number of bytes written.
    private static func readLeetspeak(_ folded: UnsafeBufferPointer<UInt8>, _ folding: UnsafeBufferPointer<Int32>,
                                      into bytes: UnsafeMutableBufferPointer<UInt8>, _ origin: UnsafeMutableBufferPointer<Int32>,
                                      tokens: inout Tokens) -> Int {
        var length = 0
        var tokenStart = -1
        var tokenHasLetter = false
        var tokenHasDigit = false
        var index = 0
        while index <= folded.count {
            var byte: UInt8 = 32
            var isSeparator = true
            if index < folded.count {
                byte = folded[index]
                if isLetter(byte) {
                    isSeparator = false
                    tokenHasLetter = true
                } else if isDigit(byte) {
                    isSeparator = false
                    tokenHasDigit = true
                } else {
                    let previous = tokenStart >= 0 && isLetter(bytes[length - 1])
                    let next = index + 1 < folded.count && isLetter(folded[index + 1])
                    switch byte {
                    case UInt8(ascii: "@") where previous || next: byte = UInt8(ascii: "a"); isSeparator = false
                    case UInt8(ascii: "$") where previous || next: byte = UInt8(ascii: "s"); isSeparator = false
                    case UInt8(ascii: "!") where previous && next: byte = UInt8(ascii: "i"); isSeparator = false
                    case UInt8(ascii: "|") where previous && next: byte = UInt8(ascii: "l"); isSeparator = false
                    default: break
                    }
                    if !isSeparator { tokenHasLetter = true }
                }
            }
            if isSeparator {
                if tokenStart >= 0 {
                    if tokenHasLetter && tokenHasDigit {
                        for position in tokenStart..<length where isDigit(bytes[position]) {
                            bytes[position] = digitLetters[Int(bytes[position] - 48)]
                        }
                    }
                    tokens.append(start: tokenStart, end: length)
                    tokenStart = -1
                    tokenHasLetter = false
                    tokenHasDigit = false
                }
                if index < folded.count, tokens.lastEnd == length {
                    tokens.addSeparatorToLast(lineBreak: byte == 10 || byte == 13)
                }
            } else {
                if tokenStart < 0 { tokenStart = length }
                bytes[length] = byte
                origin[length] = folding[index]
                length &+= 1
                index &+= 1
                // Most of a text is letters in a row: copy the rest of such a run in a tight loop.
                // A letter changes none of the state above but `tokenHasLetter`.
                while index < folded.count {
                    let next = folded[index]
                    guard isLetter(next) else { break }
                    tokenHasLetter = true
                    bytes[length] = next
                    origin[length] = folding[index]
                    length &+= 1
                    index &+= 1
                }
                continue
            }
            index &+= 1
        }
        return length
    }

    /// Pass 2: joins runs of single letters, separates words by one space, writes each repeated
    /// letter once with its run length.
    private static func writeWords(_ bytes: UnsafeBufferPointer<UInt8>, _ origin: UnsafeBufferPointer<Int32>, length: Int,
                                   tokenFields: UnsafeBufferPointer<Int32>, tokenCount: Int, into result: inout NormalizedText) {
        // Written straight into the four arrays' storage, which is then cut to what was written.
        let capacity = length + tokenCount
        var written = 0
        var starts: [Int32] = []
        var ends: [Int32] = []
        var runs: [UInt16] = []
        let words = [UInt8](unsafeUninitializedCapacity: capacity) { words, wordsCount in
        starts = [Int32](unsafeUninitializedCapacity: capacity) { starts, startsCount in
        ends = [Int32](unsafeUninitializedCapacity: capacity) { ends, endsCount in
        runs = [UInt16](unsafeUninitializedCapacity: capacity) { runs, runsCount in
            @inline(__always) func start(_ token: Int) -> Int { Int(tokenFields[token &* 4]) }
            @inline(__always) func end(_ token: Int) -> Int { Int(tokenFields[token &* 4 &+ 1]) }
            var index = 0
            while index < tokenCount {
                // A stretch of single letters with short separators: one word.
                var last = index
                if end(index) - start(index) == 1 {
                    while last + 1 < tokenCount, end(last + 1) - start(last + 1) == 1,
                          Int(tokenFields[last * 4 + 2]) <= maxJoinedSeparator, tokenFields[last * 4 + 3] == 0,
                          isLetter(bytes[start(last)]) {
                        last += 1
                    }
                }
                if last - index + 1 < minJoinedLetters { last = index }
                if written > 0 {
                    // The space covers what lies between the two words. Two words can come from
                    // one character (`℀` folds to `a/c`): then it covers nothing, where that
                    // character starts, rather than a range that ends before it begins.
                    let next = origin[start(index)]
                    words[written] = 32
                    starts[written] = min(ends[written - 1], next)
                    ends[written] = next
                    runs[written] = 1
                    written += 1
                }
                let wordStart = written
                for tokenIndex in index...last {
                    var position = start(tokenIndex)
                    let tokenEnd = end(tokenIndex)
                    while position < tokenEnd {
                        let byte = bytes[position]
                        var runEnd = position + 1
                        if byte < 0x80 {
                            while runEnd < tokenEnd && bytes[runEnd] == byte { runEnd += 1 }
                        }
                        let run = runEnd - position
                        if byte < 0x80, written > wordStart, words[written - 1] == byte {
                            // The run goes on across joined letters (`f u u u c k`).
                            runs[written - 1] = UInt16(min(Int(runs[written - 1]) + run, Int(UInt16.max)))
                            ends[written - 1] = origin[runEnd - 1] + 1
                        } else {
                            words[written] = byte
                            starts[written] = origin[position]
                            ends[written] = origin[runEnd - 1] + 1
                            runs[written] = UInt16(min(run, Int(UInt16.max)))
                            written += 1
                        }
                        position = runEnd
                    }
                }
                index = last + 1
            }
        runsCount = written }
        endsCount = written }
        startsCount = written }
        wordsCount = written }
        result.words = words
        result.wordsStart = starts
        result.wordsEnd = ends
        result.runs = runs
    }
}
