/// Why the strict parser refused a text, and the byte offset where it stopped.
public struct StrictJSONError: Error, Sendable, Equatable {
    public var reason: String
    public var offset: Int

    static let nestedTooDeeply = "nested too deeply"

    /// The input nests arrays and objects deeper than the parser's `maxDepth`.
    public var isTooDeep: Bool { reason == Self.nestedTooDeeply }
}

/// The one JSON reader: exactly RFC 8259, no duplicate object keys, no trailing bytes, bounded
/// nesting. Token headers and claims, request bodies and stored JSON are all read with it, so that
/// no two readers can disagree about what a text says.
public struct StrictJSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private let maxDepth: Int

    public static func parse(_ bytes: [UInt8], maxDepth: Int = 16) throws(StrictJSONError) -> JSONValue {
        var parser = StrictJSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("trailing bytes after the value") }
        return value
    }

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private func error(_ reason: String) -> StrictJSONError { StrictJSONError(reason: reason, offset: index) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func expect(_ literal: String) throws(StrictJSONError) {
        for byte in literal.utf8 {
            guard current == byte else { throw error("expected \(literal)") }
            index += 1
        }
    }

    private mutating func parseValue(depth: Int) throws(StrictJSONError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character")
        }
    }

    private mutating func parseObject(depth: Int) throws(StrictJSONError) -> JSONValue {
        guard depth <= maxDepth else { throw error(StrictJSONError.nestedTooDeeply) }
        index += 1
        var members = JSONObject()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try parseString()
            guard members[key] == nil else { throw error("duplicate member \(key)") }
            skipWhitespace()
            try expect(":")
            skipWhitespace()
            members.insert(key, try parseValue(depth: depth))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect("}")
            return .object(members)
        }
    }

    private mutating func parseArray(depth: Int) throws(StrictJSONError) -> JSONValue {
        guard depth <= maxDepth else { throw error(StrictJSONError.nestedTooDeeply) }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect("]")
            return .array(elements)
        }
    }

    private mutating func parseString() throws(StrictJSONError) -> String {
        index += 1
        // Most strings have no escapes: take them whole, in one validation. Most are ASCII too,
        // which needs none: the scan notes whether a byte was not.
        var end = index
        var high: UInt8 = 0
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 {
            high |= bytes[end]
            end += 1
        }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            guard let text = Self.string(bytes, index..<end, isASCII: high < 0x80) else { throw error("invalid UTF-8") }
            index = end + 1
            return text
        }
        var scalars = String.UnicodeScalarView()
        var run = index
        func flush(_ end: Int) throws(StrictJSONError) {
            guard let text = Self.string(bytes, run..<end, isASCII: false) else { throw error("invalid UTF-8") }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard let byte = current else { throw error("unterminated string") }
            if byte == UInt8(ascii: "\"") {
                try flush(index)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("control character in a string") }
            if byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            try flush(index)
            index += 1
            guard let escape = current else { throw error("unterminated escape") }
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{8}")
            case UInt8(ascii: "f"): scalars.append("\u{C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if (0xD800...0xDBFF).contains(code) {
                    try expect("\\u")
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(code) {
                    throw error("unpaired surrogate")
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid escape") }
                scalars.append(scalar)
            default:
                throw error("invalid escape")
            }
            run = index
        }
    }

    /// `bytes[range]` as a string if it is valid UTF-8. ASCII is valid as it is, and is taken
    /// without the generic validating initializer, which looks up type metadata on every call.
    private static func string(_ bytes: [UInt8], _ range: Range<Int>, isASCII: Bool) -> String? {
        bytes.withUnsafeBufferPointer { buffer in
            let slice = UnsafeBufferPointer(rebasing: buffer[range])
            return isASCII ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
        }
    }

    private mutating func parseHex4() throws(StrictJSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw error("short \\u escape") }
            let digit: UInt32
            switch byte {
            case 48...57: digit = UInt32(byte - 48)
            case 65...70: digit = UInt32(byte - 55)
            case 97...102: digit = UInt32(byte - 87)
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// A number, kept as its text. One past the double's range (`1e999`) is refused: every
    /// reader of it (JavaScript's among them) would see infinity.
    private mutating func parseNumber() throws(StrictJSONError) -> JSONNumber {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, first >= 48 && first <= 57 else { throw error("invalid number") }
        if first == 48 {
            index += 1
        } else {
            while let byte = current, byte >= 48 && byte <= 57 { index += 1 }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let byte = current, byte >= 48 && byte <= 57 else { throw error("invalid number") }
            while let byte = current, byte >= 48 && byte <= 57 { index += 1 }
        }
        if let byte = current, byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            index += 1
            if let sign = current, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard let byte = current, byte >= 48 && byte <= 57 else { throw error("invalid number") }
            while let byte = current, byte >= 48 && byte <= 57 { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number out of range") }
        return JSONNumber(validText: text)
    }
}
