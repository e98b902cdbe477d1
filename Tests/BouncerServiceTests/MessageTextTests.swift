import Testing
@testable import BouncerApplication
@testable import BouncerService

@Suite struct MessageTextTests {
    @Test func asciiIsJudgedVisibleAsUnicodesPropertiesJudgeIt() {
        for value in UInt8(0)...UInt8(127) {
            let scalar = Unicode.Scalar(value)
            #expect(MessageText.isVisible(scalar) == (!scalar.properties.isWhitespace && !scalar.properties.isDefaultIgnorableCodePoint),
                    "U+\(String(value, radix: 16))")
        }
    }

    @Test func blankTextsAreRefusedWhateverTheirSpaces() {
        for blank in [" ", " \t\r\n\u{0B}\u{0C}", "\u{85}", "\u{200B}", "\u{3000}\u{00A0}", " \u{200B}\t "] {
            #expect(throws: MessageError.textBlank, "\(blank.unicodeScalars.map(\.value))") { try MessageText.validate(blank, maxLength: 100) }
        }
        #expect(throws: MessageError.textLength(max: 3)) { try MessageText.validate("abcd", maxLength: 3) }
        #expect(throws: MessageError.textLength(max: 3)) { try MessageText.validate("", maxLength: 3) }
        for visible in ["a", " x ", "\u{200B}é", "\u{3000}字"] {
            #expect(throws: Never.self) { try MessageText.validate(visible, maxLength: 100) }
        }
    }
}
