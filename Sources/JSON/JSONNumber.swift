/// A JSON number as it was written. A client's `12345678901234567890` or `9007199254740993` is
/// data, not an approximation: a `Double` would turn them into `1.2345678901234567e+19` and
/// `9007199254740992`, so the text is what is kept, and written back, and a value is read from it
/// only when asked for (exactly, for an integer type).
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number's text, valid by RFC 8259's grammar (`-0`, `1E+400` and `0.10` as written).
    public let text: String

    /// Made by the parser from text it has checked against the grammar.
    init(validText: String) {
        text = validText
    }

    /// A finite double as `JSONEncoder` writes it; nil for NaN and infinity, which JSON lacks.
    public init?(_ value: Double) {
        guard let text = JSONText.number(value) else { return nil }
        self.text = text
    }

    public init(_ value: some BinaryInteger) {
        text = String(value)
    }

    /// The nearest double (what JavaScript would read). Infinite for text past the double's range.
    public var double: Double { Double(text) ?? .nan }

    /// Whether the text is an integer as written: no fraction and no exponent.
    public var isIntegerLiteral: Bool { !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") } }

    /// The value as `T` when it is a whole number `T` holds exactly: read from the text for an
    /// integer literal (so `9007199254740993` is not rounded on the way), from the double for
    /// `5.0` or `5e0`.
    public func exactly<T: FixedWidthInteger>(_ type: T.Type = T.self) -> T? {
        if isIntegerLiteral { return T(text) ?? (text == "-0" ? 0 : nil) }
        return T(exactly: double)
    }

    public var description: String { text }
}

extension JSONNumber: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public init(integerLiteral value: Int) { self.init(value) }
    public init(floatLiteral value: Double) { self.init(value)! }
}
