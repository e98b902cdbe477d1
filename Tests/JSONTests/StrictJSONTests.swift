import Testing
@testable import JSON

@Suite struct StrictJSONTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try StrictJSONParser.parse(Array(#" {"a":[1,-2.5e3,true,false,null],"b":"x\u00e9\ud83d\ude42\n\"","c":{}} "#.utf8))
        #expect(value["a"] == .array([.number(1), .number(JSONNumber(validText: "-2.5e3")), .bool(true), .bool(false), .null]))
        #expect(value["a"]?.serialized == "[1,-2.5e3,true,false,null]")
        #expect(value["b"] == .string("xé🙂\n\""))
        #expect(value["c"] == .object([:]))
    }

    @Test(arguments: [
        #"{"role":"user","role":"admin"}"#,  // duplicate member: two readers could disagree
        #"{"a":1} x"#,                      // trailing bytes
        #"{"a":01}"#,                        // leading zero
        #"{"a":1,}"#,                        // trailing comma
        #"{'a':1}"#,                         // single quotes
        #"{"a":"\x"}"#,                      // bad escape
        #"{"a":"\ud83d"}"#,                  // lone surrogate
        "{\"a\":\"\u{1}\"}",                 // raw control character
        #"{"a":1e999}"#,                     // out of range
        #"{"a":NaN}"#,
        "",
    ])
    func invalidJSONIsRefused(text: String) {
        #expect(throws: StrictJSONError.self) { try StrictJSONParser.parse(Array(text.utf8)) }
    }

    /// `bytes` as the content of a JSON string.
    private func string(_ bytes: [UInt8]) throws -> String? {
        try StrictJSONParser.parse([UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")]).stringValue
    }

    @Test func stringsOfASCIIAndOfValidUTF8AreRead() throws {
        #expect(try string(Array("plain ascii, 123 ~".utf8)) == "plain ascii, 123 ~")
        #expect(try string(Array("héllo wörld 👋 日本".utf8)) == "héllo wörld 👋 日本")
        #expect(try string([]) == "")
        // Escapes, also beside non-ASCII characters.
        #expect(try string(Array(#"a\"b\\c\/d\n\t\u00e9\ud83d\udc4b é"#.utf8)) == "a\"b\\c/d\n\té👋 é")
    }

    @Test func invalidUTF8IsRefusedWithOrWithoutEscapes() {
        let invalid: [[UInt8]] = [
            [0xFF],
            [0x61, 0xC3, 0x28],  // a lead byte without its continuation
            [0x80],  // a lone continuation byte
            [0xC0, 0xAF],  // an overlong encoding of "/"
            [0xED, 0xA0, 0x80],  // a surrogate, encoded
            [0xF4, 0x90, 0x80, 0x80],  // beyond U+10FFFF
            [0xE2, 0x82],  // cut short before the closing quote
        ]
        for bytes in invalid {
            #expect(throws: StrictJSONError.self, "\(bytes)") { try string(bytes) }
            // After an escape, the same bytes take the parser's other path.
            #expect(throws: StrictJSONError.self, "\(bytes) after an escape") { try string(Array(#"\n"#.utf8) + bytes) }
        }
    }

    @Test func duplicateMembersAreRefusedAtAnyDepthHoweverSpelled() throws {
        #expect(try StrictJSONParser.parse(Array(#"{"a":1,"b":{"a":2}}"#.utf8))["b"]?["a"] == .number(2))
        #expect(throws: StrictJSONError.self) { try StrictJSONParser.parse(Array(#"{"x":{"a":1,"a":1}}"#.utf8)) }
        #expect(throws: StrictJSONError.self) { try StrictJSONParser.parse(Array(#"{"é":1,"\u00e9":2}"#.utf8)) }
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: 17) + String(repeating: "]", count: 17)
        #expect(throws: StrictJSONError.self) { try StrictJSONParser.parse(Array(deep.utf8), maxDepth: 16) }
        let fine = String(repeating: "[", count: 16) + String(repeating: "]", count: 16)
        _ = try StrictJSONParser.parse(Array(fine.utf8), maxDepth: 16)
    }
}
