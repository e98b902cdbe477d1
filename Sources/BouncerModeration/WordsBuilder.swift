/// Builds the `words` form of a `NormalizedText` from its `folded` form.
enum WordsBuilder {
    /// Leetspeak digits, read as letters inside a token that has letters too.
    static let digitLetters: [UInt8] = Array("o" .utf8) + Array("i".utf8) + [UInt8(ascii: "2")] + Array("e".utf8)
        + Array("a".utf8) + Array("s".utf8) + [UInt8(ascii: "6")] + Array("t".utf8) + Array("b".utf8) + Array("g".utf8)

    /// Most separator bytes between two single letters that are still joined (`f . u`).
    static let maxJoinedSeparator = 3
    /// Fewest single letters in a row that are joined (`a b` stays two words; `f u c k` is one).
    static let minJoinedLetters = 3

    @inline(__always) static func isLetter(_ byte: UInt8) -> Bool { (byte >= 97 && byte <= 122) || byte >= 0x80 }
    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    /// A word of the text: bytes `start..<end` of the leet-read buffer.
    private struct Token {
        var start: Int
        var end: Int
        /// Separator bytes before the next token, and whether they include a line break.
        var separatorAfter = 0
        var lineBreakAfter = false
    }

    static func build(from text: NormalizedText, into result: inout NormalizedText) {
        let folded = text.folded
        let origin = text.foldedOrigin
        // Pass 1: read leetspeak symbols and digits, and cut the text into tokens.
        var bytes: [UInt8] = []
        var byteOrigin: [Int32] = []
        bytes.reserveCapacity(folded.count)
        byteOrigin.reserveCapacity(folded.count)
        var tokens: [Token] = []
        var tokenStart = -1
        var tokenHasLetter = false
        func closeToken() {
            guard tokenStart >= 0 else { return }
            if tokenHasLetter {
                for index in tokenStart..<bytes.count where isDigit(bytes[index]) {
                    bytes[index] = digitLetters[Int(bytes[index] - 48)]
                }
            }
            tokens.append(Token(start: tokenStart, end: bytes.count))
            tokenStart = -1
            tokenHasLetter = false
        }
        for index in 0..<folded.count {
            var byte = folded[index]
            if !(isLetter(byte) || isDigit(byte)) {
                let previous = tokenStart >= 0 && isLetter(bytes[bytes.count - 1])
                let next = index + 1 < folded.count && isLetter(folded[index + 1])
                switch byte {
                case UInt8(ascii: "@") where previous || next: byte = UInt8(ascii: "a")
                case UInt8(ascii: "$") where previous || next: byte = UInt8(ascii: "s")
                case UInt8(ascii: "!") where previous && next: byte = UInt8(ascii: "i")
                case UInt8(ascii: "|") where previous && next: byte = UInt8(ascii: "l")
                default:
                    closeToken()
                    if let last = tokens.indices.last, tokens[last].end == bytes.count {
                        tokens[last].separatorAfter += 1
                        if byte == 10 || byte == 13 { tokens[last].lineBreakAfter = true }
                    }
                    continue
                }
            }
            if tokenStart < 0 { tokenStart = bytes.count }
            if isLetter(byte) { tokenHasLetter = true }
            bytes.append(byte)
            byteOrigin.append(origin[index])
        }
        closeToken()

        // Pass 2: join runs of single letters, separate words by one space, write repeated
        // letters once.
        var words: [UInt8] = []
        var starts: [Int32] = []
        var ends: [Int32] = []
        var runs: [UInt16] = []
        words.reserveCapacity(bytes.count + tokens.count)
        starts.reserveCapacity(bytes.count + tokens.count)
        ends.reserveCapacity(bytes.count + tokens.count)
        runs.reserveCapacity(bytes.count + tokens.count)
        var index = 0
        while index < tokens.count {
            // A stretch of single letters with short separators: one word.
            var last = index
            while last + 1 < tokens.count, tokens[last].end - tokens[last].start == 1,
                  tokens[last + 1].end - tokens[last + 1].start == 1,
                  tokens[last].separatorAfter <= maxJoinedSeparator, !tokens[last].lineBreakAfter,
                  isLetter(bytes[tokens[last].start]) {
                last += 1
            }
            let joined = last - index + 1 >= minJoinedLetters && tokens[index].end - tokens[index].start == 1
            let group = joined ? index...last : index...index
            if !words.isEmpty {
                words.append(32)
                starts.append(ends.last ?? 0)
                ends.append(byteOrigin[tokens[group.lowerBound].start])
                runs.append(1)
            }
            for tokenIndex in group {
                let token = tokens[tokenIndex]
                var position = token.start
                while position < token.end {
                    let byte = bytes[position]
                    var runEnd = position + 1
                    if byte < 0x80 {
                        while runEnd < token.end && bytes[runEnd] == byte { runEnd += 1 }
                    }
                    // A repeated letter may continue into the next joined token (`f u u u c k`).
                    if joined, runEnd == token.end, let previous = words.last, previous == byte, byte < 0x80,
                       let lastRun = runs.indices.last, position == token.start, tokenIndex != group.lowerBound {
                        runs[lastRun] += UInt16(min(runEnd - position, Int(UInt16.max) - Int(runs[lastRun])))
                        ends[ends.count - 1] = byteOrigin[runEnd - 1] + 1
                        position = runEnd
                        continue
                    }
                    words.append(byte)
                    starts.append(byteOrigin[position])
                    ends.append(byteOrigin[runEnd - 1] + 1)
                    runs.append(UInt16(min(runEnd - position, Int(UInt16.max))))
                    position = runEnd
                }
            }
            index = group.upperBound + 1
        }
        result.words = words
        result.wordsStart = starts
        result.wordsEnd = ends
        result.runs = runs
    }
}
