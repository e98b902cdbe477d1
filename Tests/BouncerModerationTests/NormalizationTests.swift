import Foundation
import Testing
@testable import BouncerModeration

@Suite struct NormalizationTests {
    static func words(_ text: String) -> String { String(decoding: NormalizedText(text).words, as: UTF8.self) }
    static func folded(_ text: String) -> String { String(decoding: NormalizedText(text).folded, as: UTF8.self) }

    @Test(arguments: [
        ("HeLLo", "hello"),                      // case
        ("Ｈｅｌｌｏ", "hello"),                  // fullwidth
        ("𝐡𝐞𝐥𝐥𝐨", "hello"),                     // mathematical bold
        ("héllò", "hello"),                      // diacritics, precomposed
        ("he\u{0301}llo", "hello"),              // diacritics, combining
        ("hel\u{200B}lo", "hello"),              // zero-width space
        ("h\u{00AD}e\u{200D}l\u{FE0F}lo", "hello"), // soft hyphen, joiner, variation selector
        ("һеllо", "hello"),                      // Cyrillic look-alikes
        ("ΗΕLLΟ ηεllο", "hello nello"),          // Greek look-alikes (a small eta reads as n)
        ("ﬁne", "fine"),                         // ligature
        ("straße", "strasse"),                   // case folding
        ("ⓗⓔⓛⓛⓞ", "hello"),                     // circled letters
        ("日本語", "日本語"),                      // other scripts are kept
    ])
    func folding(input: String, expected: String) {
        #expect(Self.folded(input) == expected)
    }

    @Test(arguments: [
        ("sh1t", "shit"), ("5h1t", "shit"), ("@ss", "as"), ("a$$", "as"), ("sh!t", "shit"), ("h3ll0", "helo"),
        ("f.u.c.k", "fuck"), ("f u c k", "fuck"), ("f-u-c-k you", "fuck you"), ("f_u_c_k", "fuck"),
        ("fuuuuuck", "fuck"), ("FUUUCK!!!", "fuck"), ("hello!", "helo"), ("2024 was 1337", "2024 was 137"),
        ("what?! no", "what no"), ("a b", "a b"), ("multi\n\nline", "multi line"),
    ])
    func words(input: String, expected: String) {
        #expect(Self.words(input) == expected)
    }

    @Test func repeatedLettersKeepTheirCount() {
        let text = NormalizedText("booook")
        #expect(text.words == Array("bok".utf8))
        #expect(text.runs == [1, 4, 1])
    }

    @Test func everyByteRemembersWhereItCameFrom() {
        let text = NormalizedText("Ａ🙂b")
        #expect(text.folded == Array("a".utf8) + Array("🙂".utf8) + Array("b".utf8))
        #expect(text.foldedOrigin == [0, 1, 1, 1, 1, 2])
        let span = text.span(scalars: 1, 3)
        #expect(span == MatchSpan(text: "🙂b", start: 1, end: 3, utf16Start: 1, utf16End: 4))
    }

    /// The words pass's scratch is a temporary allocation, on the stack when it is small: a text
    /// whose scratch is far larger than a small thread's stack is normalized there all the same.
    @Test func aLargeTextIsNormalizedOnASmallStack() async {
        let text = String(repeating: "sh1t happens, f.u.c.k ", count: 20_000)  // 440,000 bytes
        let words = await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: NormalizedText(text).words) }
            thread.stackSize = 128 * 1024
            thread.start()
        }
        let expected = Array(String(repeating: " shit hapens fuck", count: 20_000).dropFirst().utf8)
        #expect(words == expected)
    }

    /// Found by fuzzing: `℀` folds to `a/c`, two words from one character, and the space
    /// between them covered a range that ended before it began.
    @Test func wordsFromOneCharacterStillMapToForwardRanges() {
        for text in ["ci\u{2100}wid", "\u{2100}", "x \u{2100} \u{2101}y", "ci\0\0\u{2100}\u{FFFD}wid"] {
            let normalized = NormalizedText(text)
            for index in normalized.words.indices {
                #expect(normalized.wordsStart[index] <= normalized.wordsEnd[index], "\(text.debugDescription): word byte \(index)")
            }
        }
        let text = NormalizedText("\u{2100}")
        #expect(String(decoding: text.words, as: UTF8.self) == "a c")
        #expect(text.wordsStart == [0, 0, 0] && text.wordsEnd == [1, 0, 1])
    }

    /// A word list's plain words skip `NormalizedText` when rules are compiled: the shortcut must
    /// give what it would.
    @Test func plainWordsAreReadAsTheNormalizerReadsThem() {
        var generator = SystemRandomNumberGenerator()
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for _ in 0..<2000 {
            // Few distinct letters, so repeated runs are common.
            let pool = letters.shuffled(using: &generator).prefix(Int.random(in: 1...4, using: &generator))
            let word = String((0..<Int.random(in: 1...12, using: &generator)).map { _ in pool.randomElement(using: &generator)! })
            let shortcut = PatternCompiler.lettersOnly(word)
            let normalized = NormalizedText(word)
            #expect(shortcut?.literal == normalized.words && shortcut?.runs == normalized.runs, "\(word)")
        }
        for other in ["sh1t", "f*ck", "two words", "é", "", "a-b", "x@"] { #expect(PatternCompiler.lettersOnly(other) == nil, "\(other)") }
    }
}
