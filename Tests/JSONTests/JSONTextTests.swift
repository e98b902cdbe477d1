import Testing
@testable import JSON

@Suite struct JSONTextTests {
    private func text(_ write: (inout [UInt8]) -> Void) -> String {
        var bytes: [UInt8] = []
        write(&bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func stringsAreEscapedOnlyWhereJSONNeedsIt() {
        #expect(JSONText.quoted("plain é 👋 / ~") == #""plain é 👋 / ~""#)
        #expect(JSONText.quoted("q\"b\\n\n\r\t") == #""q\"b\\n\n\r\t""#)
        #expect(JSONText.quoted("\u{0}\u{8}\u{c}\u{1f}\u{7f}") == #""\u0000\u0008\u000c\u001f\u007f""#)
        var string = "x="
        JSONText.appendString("a\"b", to: &string)
        #expect(string == #"x="a\"b""#)
        #expect(text { JSONText.appendMember(#"{"k":"#, "v\n", to: &$0) } == #"{"k":"v\n""#)
    }

    @Test func numbersAreWrittenAsJSONEncoderWritesThem() {
        let cases: [(Double, String)] = [
            (0, "0"), (5, "5"), (-5, "-5"), (1.5, "1.5"), (0.1, "0.1"), (-0.0, "-0"), (1e15, "1000000000000000"),
            (123456789012345, "123456789012345"), (1e16, "1e+16"), (1e-5, "1e-05"), (.leastNonzeroMagnitude, "5e-324"), (.nan, "null"),
        ]
        for (value, expected) in cases {
            #expect(text { JSONText.appendNumber(value, to: &$0) } == expected)
        }
        #expect(text { JSONText.appendInteger(Int.min, to: &$0) } == "-9223372036854775808")
        #expect(text { JSONText.appendInteger(UInt64.max, to: &$0) } == "18446744073709551615")
    }

    @Test func valuesSerializeCompactlyWithMembersInKeyOrder() throws {
        let value: JSONValue = .object(["b": .array([.number(1), .number(2.5), .bool(true), .null]), "a": .string("x\"y"),
                                        "c": .object(["z": .object([:]), "y": .array([])])])
        #expect(value.serialized == #"{"a":"x\"y","b":[1,2.5,true,null],"c":{"y":[],"z":{}}}"#)
        #expect(try StrictJSONParser.parse(Array(value.serialized.utf8)) == value)
    }
}
