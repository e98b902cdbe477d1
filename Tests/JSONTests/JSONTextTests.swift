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

    @Test func valuesSerializeCompactlyWithMembersInTheirOrder() throws {
        let value: JSONValue = .object(["b": .array([.number(1), .number(2.5), .bool(true), .null]), "a": .string("x\"y"),
                                        "c": .object(["z": .object([:]), "y": .array([])])])
        #expect(value.serialized == #"{"b":[1,2.5,true,null],"a":"x\"y","c":{"z":{},"y":[]}}"#)
        #expect(try StrictJSONParser.parse(Array(value.serialized.utf8)) == value)
        // Made from a dictionary, which has no order, members are in key order.
        #expect(JSONValue.object(JSONObject(["b": .null, "a": .null])).serialized == #"{"a":null,"b":null}"#)
    }

    /// A client's numbers are data: past 2^53, with exponents, as negative zero, each comes back
    /// as it was written (a double would make 12345678901234567890 into 1.2345678901234567e+19).
    @Test(arguments: ["12345678901234567890", "9007199254740993", "-9223372036854775809", "-0", "0.10", "1E+2", "-2.5e-3",
                      "1.7976931348623157e308", "0.1000000000000000055511151231257827", "123456789012345678901234567890.5"])
    func numbersRoundTripAsWritten(text: String) throws {
        let document = #"{"z":1,"n":\#(text),"a":[\#(text)]}"#
        let value = try StrictJSONParser.parse(Array(document.utf8))
        #expect(value.serialized == document)
        #expect(value["n"] == .number(JSONNumber(validText: text)))
    }

    /// Objects are equal by their members, whatever their order; numbers by their text.
    @Test func equalityIsByMembersAndNumbersByText() throws {
        #expect(try StrictJSONParser.parse(Array(#"{"a":1,"b":2}"#.utf8)) == StrictJSONParser.parse(Array(#"{"b":2,"a":1}"#.utf8)))
        #expect(try StrictJSONParser.parse(Array("1.0".utf8)) != StrictJSONParser.parse(Array("1".utf8)))
    }
}
