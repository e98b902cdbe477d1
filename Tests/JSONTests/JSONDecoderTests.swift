import Foundation
import Testing
@testable import JSON

/// `JSONValue.decode` against Foundation's `JSONDecoder`, which it replaces for request bodies:
/// the same values, and the same errors with the same coding paths.
@Suite struct JSONDecoderTests {
    struct Inner: Decodable, Equatable {
        var a: Int
        var b: [Inner]?
    }

    struct Everything: Decodable, Equatable {
        var bool: Bool
        var string: String
        var double: Double
        var float: Float
        var int: Int
        var int8: Int8
        var int16: Int16
        var int32: Int32
        var int64: Int64
        var uint: UInt
        var uint8: UInt8
        var uint16: UInt16
        var uint32: UInt32
        var uint64: UInt64
        var optional: String?
        var strings: [String]
        var matrix: [[Int?]]
        var inner: Inner
        var map: [String: Double]
        var any: JSONValue?
    }

    static let everything = #"""
        {"bool":true,"string":"é\n\"👋","double":-2.5e3,"float":1.5,"int":-7,"int8":-128,"int16":32767,"int32":5.0,
         "int64":-9007199254740992,"uint":0,"uint8":255,"uint16":1e2,"uint32":4294967295,"uint64":9007199254740992,
         "optional":null,"strings":["a",""],"matrix":[[1,null],[]],"inner":{"a":1,"b":[{"a":2},{"a":3,"b":[]}]},
         "map":{"x":1,"y":0.25},"any":{"k":[1,"two",null,true,{}]},"ignored":{"deep":[1]}}
        """#

    /// What decoding `text` as `T` gives: the value, or the error's case and coding path.
    enum Outcome<T: Equatable>: Equatable, CustomStringConvertible {
        case value(T)
        case error(String, [String])
        case notJSON

        init(_ decode: () throws -> T) {
            do {
                self = .value(try decode())
            } catch let error as DecodingError {
                func path(_ context: DecodingError.Context, _ key: (any CodingKey)? = nil) -> [String] {
                    (context.codingPath + (key.map { [$0] } ?? [])).map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }
                }
                switch error {
                case .keyNotFound(let key, let context): self = .error("keyNotFound", path(context, key))
                case .typeMismatch(_, let context): self = .error("typeMismatch", path(context))
                case .valueNotFound(_, let context): self = .error("valueNotFound", path(context))
                case .dataCorrupted(let context): self = context.codingPath.isEmpty ? .notJSON : .error("dataCorrupted", path(context))
                @unknown default: self = .error("unknown", [])
                }
            } catch {
                self = .notJSON
            }
        }

        var description: String {
            switch self {
            case .value(let value): "\(value)"
            case .error(let kind, let path): "\(kind) at \(path)"
            case .notJSON: "not JSON"
            }
        }
    }

    static func ours<T: Decodable & Equatable>(_ text: String, as type: T.Type) -> Outcome<T> {
        Outcome { try StrictJSONParser.parse(Array(text.utf8), maxDepth: 64).decode(T.self) }
    }

    static func foundations<T: Decodable & Equatable>(_ text: String, as type: T.Type) -> Outcome<T> {
        Outcome { try JSONDecoder().decode(T.self, from: Data(text.utf8)) }
    }

    @Test func everyTypeDecodesAsJSONDecoderDecodesIt() throws {
        let value = try StrictJSONParser.parse(Array(Self.everything.utf8)).decode(Everything.self)
        #expect(value == (try JSONDecoder().decode(Everything.self, from: Data(Self.everything.utf8))))
        #expect(value.string == "é\n\"👋" && value.int32 == 5 && value.uint16 == 100 && value.optional == nil)
        #expect(value.matrix == [[1, nil], []] && value.inner.b?[1] == Inner(a: 3, b: []))
        #expect(value.any == .object(["k": .array([.number(1), .string("two"), .null, .bool(true), .object([:])])]))
    }

    /// Integers past 2^53 are read from their text, not through a double that would round them.
    @Test func largeIntegersDecodeExactly() throws {
        struct Big: Decodable, Equatable { var a: Int64; var b: UInt64; var c: Int64 }
        let text = #"{"a":9007199254740993,"b":18446744073709551615,"c":-9223372036854775808}"#
        let big = try StrictJSONParser.parse(Array(text.utf8)).decode(Big.self)
        #expect(big == Big(a: 9_007_199_254_740_993, b: .max, c: .min))
        #expect(big == (try JSONDecoder().decode(Big.self, from: Data(text.utf8))))
        #expect(throws: DecodingError.self) { try StrictJSONParser.parse(Array(#"{"a":9223372036854775808,"b":0,"c":0}"#.utf8)).decode(Big.self) }
    }

    @Test(arguments: [
        #"{"a":1,"b":[{"a":2},{"a":"x"}]}"#,   // a type mismatch two levels down
        #"{"a":1,"b":[{"a":2},{"a":null}]}"#,  // null where a value is required
        #"{"a":1,"b":[{"a":2},{}]}"#,          // a missing key inside an array element
        #"{"a":1,"b":[{"a":2},5]}"#,           // an element that is not an object
        #"{"a":1,"b":{"a":2}}"#,               // an object where an array is expected
        #"{"a":1,"b":null}"#,                  // null for an optional: nil
        #"{"a":1}"#,                           // missing optional: nil
        #"{"b":[]}"#,                          // a missing required key at the top
        #"{"a":true}"#, #"{"a":"1"}"#, #"{"a":[1]}"#, #"{"a":{}}"#,
        #"[{"a":1}]"#, "5", "null", #""a""#,   // not an object at all
        #"{"a":5.0}"#, #"{"a":5e0}"#, #"{"a":-0}"#, #"{"a":1E+2}"#, #"{"a":-9223372036854775808}"#,  // whole numbers
        #"{"a":5.5}"#, #"{"a":1e30}"#, #"{"a":9223372036854775808}"#, #"{"a":1e-1}"#,  // numbers that do not fit
        #"{"a":1,"b":[{"a":2.5}]}"#,
    ])
    func outcomesAndCodingPathsAreJSONDecoders(text: String) {
        #expect(Self.ours(text, as: Inner.self) == Self.foundations(text, as: Inner.self))
    }

    @Test func pathsNameDictionaryKeysAndArrayIndexes() {
        #expect(Self.ours(#"{"x":1,"y":"z"}"#, as: [String: Int].self) == .error("typeMismatch", ["y"]))
        #expect(Self.ours(#"[[1],[2,null]]"#, as: [[Int]].self) == .error("valueNotFound", ["[1]", "[1]"]))
        #expect(Self.ours(#"{"a":1,"b":[{"a":1},{"a":1,"b":[{"a":1},{"a":[]}]}]}"#, as: Inner.self)
                == .error("typeMismatch", ["b", "[1]", "b", "[1]", "a"]))
    }

    struct Tolerant: Decodable, Equatable {
        var present: Bool
        var explicitNull: Bool
        var value: Int?

        enum CodingKeys: String, CodingKey { case value }

        init(present: Bool, explicitNull: Bool, value: Int?) {
            self.present = present
            self.explicitNull = explicitNull
            self.value = value
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            present = container.contains(.value)
            explicitNull = present ? try container.decodeNil(forKey: .value) : false
            value = try container.decodeIfPresent(Int.self, forKey: .value)
        }
    }

    @Test func nullAndMissingAreTold() {
        #expect(Self.ours(#"{}"#, as: Tolerant.self) == .value(Tolerant(present: false, explicitNull: false, value: nil)))
        #expect(Self.ours(#"{"value":null}"#, as: Tolerant.self) == .value(Tolerant(present: true, explicitNull: true, value: nil)))
        #expect(Self.ours(#"{"value":3}"#, as: Tolerant.self) == .value(Tolerant(present: true, explicitNull: false, value: 3)))
        #expect(Self.ours(#"{"value":"3"}"#, as: Tolerant.self) == Self.foundations(#"{"value":"3"}"#, as: Tolerant.self))
    }

    struct Pair: Decodable, Equatable {
        var first: String
        var second: String

        init(first: String, second: String) {
            self.first = first
            self.second = second
        }

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            first = try container.decode(String.self)
            second = try container.decode(String.self)
        }
    }

    @Test func anUnkeyedContainerAtItsEndNamesTheMissingIndex() {
        #expect(Self.ours(#"["a","b","c"]"#, as: Pair.self) == .value(Pair(first: "a", second: "b")))
        #expect(Self.ours(#"["a"]"#, as: Pair.self) == .error("valueNotFound", ["[1]"]))
        #expect(Self.ours(#"["a"]"#, as: Pair.self) == Self.foundations(#"["a"]"#, as: Pair.self))
    }

    @Test func aDuplicateKeyIsNotJSONToTheStrictReader() {
        let text = #"{"a":1,"a":2}"#
        #expect(Self.ours(text, as: Inner.self) == .notJSON)
        // JSONDecoder took the first; the strict parser refuses, as it does for tokens.
        #expect(Self.foundations(text, as: Inner.self) == .value(Inner(a: 1)))
    }

    @Test func storedTextIsReadTheSameWay() throws {
        #expect(try JSONValue.decode([String: String].self, from: #"{"k":"a\/b"}"#) == ["k": "a/b"])
        #expect(throws: StrictJSONError.self) { try JSONValue.decode([String].self, from: #"["a",]"#) }
    }
}
