import Testing
@testable import BouncerIdentity

@Suite struct StrictJSONTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try StrictJSONParser.parse(Array(#" {"a":[1,-2.5e3,true,false,null],"b":"x\u00e9\ud83d\ude42\n\"","c":{}} "#.utf8))
        #expect(value["a"] == .array([.number(1), .number(-2500), .bool(true), .bool(false), .null]))
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

    @Test func invalidUTF8IsRefused() {
        #expect(throws: StrictJSONError.self) { try StrictJSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: 17) + String(repeating: "]", count: 17)
        #expect(throws: StrictJSONError.self) { try StrictJSONParser.parse(Array(deep.utf8), maxDepth: 16) }
        let fine = String(repeating: "[", count: 16) + String(repeating: "]", count: 16)
        _ = try StrictJSONParser.parse(Array(fine.utf8), maxDepth: 16)
    }
}
