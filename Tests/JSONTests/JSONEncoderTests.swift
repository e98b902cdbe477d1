import Foundation
import Testing
@testable import JSON

/// `JSONText.encode` against Foundation's `JSONEncoder` as the service set it up before
/// (`.sortedKeys`, `.withoutEscapingSlashes`): the same text.
@Suite struct JSONEncoderTests {
    /// Writes nil as an explicit null, as the service's `@Nullable` does.
    @propertyWrapper
    struct Nullable<Value: Encodable>: Encodable {
        var wrappedValue: Value?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
        }
    }

    enum Kind: String, Encodable { case word, regex }

    struct Inner: Encodable {
        var id: String
        var values: [Double]
    }

    struct Everything: Encodable {
        var zeta = "last by name, first declared"
        var bool = true
        var string = "a/b é 👋 \"q\" \\ \n\r\t \u{1}"
        var double = -2.5
        var whole = 5.0
        var tiny = 1e-7
        var huge = 1e300
        var float: Float = 1.1
        var int = -7
        var int8: Int8 = -128
        var int64 = Int64.max
        var uint64 = UInt64.max
        var uint8: UInt8 = 255
        var kind = Kind.regex
        var absent: String? = nil
        var present: String? = "here"
        @Nullable var nullable: String? = nil
        @Nullable var nullableSet: Int? = 3
        var strings = ["b", "a"]
        var matrix: [[Int?]] = [[1, nil], [], [3]]
        var inner = Inner(id: "i", values: [0.5, 2])
        var inners = [Inner(id: "x", values: []), Inner(id: "y", values: [1e21])]
        var map = ["b": 2, "a": 1, "a_b": 3, "aB": 4, "A": 5, "a.b.c": 6, "a10": 7, "a2": 8, "é": 9, "Z": 10]
        var emptyMap: [String: String] = [:]
    }

    static func foundations(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func ours(_ value: some Encodable) throws -> String {
        String(decoding: try JSONText.encode(value), as: UTF8.self)
    }

    @Test func theTextIsJSONEncoders() throws {
        #expect(try Self.ours(Everything()) == (try Self.foundations(Everything())))
        #expect(try Self.ours([1, 2]) == "[1,2]")
        #expect(try Self.ours("top") == #""top""#)
        #expect(try Self.ours(["k": [String: Int]()]) == #"{"k":{}}"#)
        #expect(try JSONText.encodedString([String?.none, "a"]) == #"[null,"a"]"#)
    }

    @Test func keysAreInKeyOrderAndNilIsLeftOutUnlessNullable() throws {
        struct Member: Encodable {
            var name = "n"
            var id = "i"
            var note: String? = nil
            @Nullable var reason: String? = nil
        }
        #expect(try Self.ours(Member()) == #"{"id":"i","name":"n","reason":null}"#)
        #expect(try Self.ours(["next_cursor": nil, "rules": ["r"]]) == #"{"next_cursor":null,"rules":["r"]}"#)
    }

    @Test func controlCharactersAreEscapedAsTheHandWrittenJSONEscapesThem() throws {
        // JSONEncoder wrote \b and \f, and DEL as it is: the same strings, escaped another way.
        let text = "\u{8}\u{c}\u{7f}"
        #expect(try Self.ours([text]) == #"["\u0008\u000c\u007f"]"#)
        #expect(try StrictJSONParser.parse(JSONText.encode([text])) == StrictJSONParser.parse(Array(Self.foundations([text]).utf8)))
    }

    @Test func whatJSONCannotHoldIsRefused() throws {
        #expect(throws: EncodingError.self) { try JSONText.encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONText.encode(["x": Float.infinity]) }
        struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }
        #expect(throws: EncodingError.self) { try JSONText.encode(Nothing()) }
        #expect(try Self.ours([Nothing()]) == "[{}]")
    }

    @Test func nestedContainersAndSuperEncodersFillInTheirPart() throws {
        struct Manual: Encodable {
            enum Keys: String, CodingKey { case list, object }
            enum InnerKeys: String, CodingKey { case x }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var list = container.nestedUnkeyedContainer(forKey: .list)
                try list.encode(1)
                var object = list.nestedContainer(keyedBy: InnerKeys.self)
                try object.encode(true, forKey: .x)
                var deeper = list.nestedUnkeyedContainer()
                try deeper.encodeNil()
                try list.encode("after")
                var inner = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .object)
                try inner.encode(2.5, forKey: .x)
                try "s".encode(to: container.superEncoder())
            }
        }
        #expect(try Self.ours(Manual()) == #"{"list":[1,{"x":true},[null],"after"],"object":{"x":2.5},"super":"s"}"#)
        #expect(try Self.ours(Manual()) == (try Self.foundations(Manual())))
    }

    @Test func whatIsWrittenReadsBackTheSame() throws {
        struct Record: Codable, Equatable {
            var name: String
            var counts: [Int]
            var nested: [String: [Double]]
            var flag: Bool?
        }
        let record = Record(name: "x\u{0}y", counts: [-9_007_199_254_740_992, 0, 9_007_199_254_740_992], nested: ["a": [0.1, -0.0, 1e-300]], flag: false)
        #expect(try JSONValue.decode(Record.self, from: JSONText.encodedString(record)) == record)
    }
}
