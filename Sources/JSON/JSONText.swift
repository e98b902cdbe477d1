/// The one JSON writer: every JSON text Bouncer writes goes through these, by hand where the
/// shape is fixed and speed matters (messages, flags, problems, log lines), from a `JSONValue`, or
/// from an `Encodable` value (`encode`).
public enum JSONText {
    /// Appends `string` as a JSON string literal. Works on UTF-8 bytes: only `"`, `\\` and control
    /// characters need escaping, everything else (non-ASCII included) is copied as it is.
    public static func appendString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings need no escape: copy them in one go, scanning the bytes where they lie.
        let copied = string.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for byte in bytes where needsEscape(byte) { return false }
            output.append(contentsOf: bytes)
            return true
        }
        if copied == true {
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""):
                output.append(UInt8(ascii: "\\")); output.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"):
                output.append(UInt8(ascii: "\\")); output.append(UInt8(ascii: "\\"))
            case 0x0A:
                output.append(UInt8(ascii: "\\")); output.append(UInt8(ascii: "n"))
            case 0x0D:
                output.append(UInt8(ascii: "\\")); output.append(UInt8(ascii: "r"))
            case 0x09:
                output.append(UInt8(ascii: "\\")); output.append(UInt8(ascii: "t"))
            case 0..<0x20, 0x7F:
                output.append(contentsOf: "\\u00".utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0xF)])
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends `name` (a literal such as `,"name":`, quotes and separators included) and then
    /// `value` as a JSON string: one member of an object written by hand.
    public static func appendMember(_ name: String, _ value: String, to output: inout [UInt8]) {
        output.appendUTF8(name)
        appendString(value, to: &output)
    }

    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F
    }

    /// Appends `value` as JSONEncoder writes a double: the shortest text that reads back as the
    /// same value, without a trailing `.0` (`5`, `0.1`, `1e+16`). JSON has no NaN or infinity:
    /// those are written as `null` (`encode` refuses them instead).
    public static func appendNumber(_ value: Double, to output: inout [UInt8]) {
        output.append(contentsOf: (number(value) ?? "null").utf8)
    }

    /// `value` as JSONEncoder writes it, or nil for NaN and infinity.
    static func number<Number: FloatingPoint & CustomStringConvertible>(_ value: Number) -> String? {
        guard value.isFinite else { return nil }
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    public static func appendInteger(_ value: some BinaryInteger, to output: inout [UInt8]) {
        if let value = Int(exactly: value) {
            output.appendDecimal(value)
        } else {
            output.append(contentsOf: String(value).utf8)
        }
    }

    public static func appendBool(_ value: Bool, to output: inout [UInt8]) {
        output.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Appends `members` as an object, in key order, each value written by `write`.
    static func appendObject<Value>(_ members: [String: Value], to output: inout [UInt8], _ write: (Value, inout [UInt8]) -> Void) {
        output.append(UInt8(ascii: "{"))
        for (index, key) in members.keys.sorted().enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            appendString(key, to: &output)
            output.append(UInt8(ascii: ":"))
            write(members[key]!, &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    /// Appends `elements` as an array, each written by `write`.
    static func appendArray<Element>(_ elements: [Element], to output: inout [UInt8], _ write: (Element, inout [UInt8]) -> Void) {
        output.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            write(element, &output)
        }
        output.append(UInt8(ascii: "]"))
    }

    public static func appendString(_ string: String, to output: inout String) {
        var bytes: [UInt8] = []
        appendString(string, to: &bytes)
        output += String(decoding: bytes, as: UTF8.self)
    }

    public static func quoted(_ string: String) -> String {
        var bytes: [UInt8] = []
        appendString(string, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
