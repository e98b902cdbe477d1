import Testing
import JSON

@Suite struct ByteWritingTests {
    @Test(arguments: [0, 7, 10, 99, 100, 1_234_567, -1, -10, -987_654, Int.max, Int.min])
    func decimalsAreWrittenAsStringWritesThem(_ value: Int) {
        var bytes: [UInt8] = Array("x=".utf8)
        bytes.appendDecimal(value)
        #expect(String(decoding: bytes, as: UTF8.self) == "x=" + String(value))
    }

    @Test func stringsAreAppendedWholeWhateverTheirSizeAndScript() {
        for text in ["", "a", "fifteen bytes!!", "sixteen bytes!!!", "grüße, 世界 🧱", String(repeating: "é", count: 300)] {
            var bytes: [UInt8] = [0xFF]
            bytes.appendUTF8(text)
            #expect(bytes == [0xFF] + Array(text.utf8), "\(text)")
        }
    }

    @Test func literalsAreAppendedByteForByte() {
        var bytes: [UInt8] = []
        bytes.append("Content-Length: ")
        bytes.append("\r\n")
        bytes.append("ü")
        #expect(bytes == Array("Content-Length: \r\nü".utf8))
    }
}
