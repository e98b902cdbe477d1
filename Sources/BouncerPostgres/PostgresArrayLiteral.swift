import BouncerStore

/// Values as one PostgreSQL array literal (`{"a","b \"c\"",NULL}`), the text form of an array
/// parameter: a column of many rows bound as one value, which `unnest` turns back into rows.
enum PostgresArrayLiteral {
    static func of(_ values: some Sequence<DatabaseValue>) -> String {
        var literal = "{"
        var first = true
        for value in values {
            if !first { literal.append(",") }
            first = false
            switch value {
            case .null: literal.append("NULL")
            case .integer(let number): literal.append(String(number))
            case .real(let number): quoted(String(number), into: &literal)
            case .text(let text): quoted(text, into: &literal)
            case .blob(let bytes): quoted("\\x" + bytes.map { byte in hexDigits[Int(byte >> 4)] + hexDigits[Int(byte & 15)] }.joined(), into: &literal)
            }
        }
        literal.append("}")
        return literal
    }

    /// An element in double quotes, its quotes and backslashes escaped by a backslash: nothing
    /// else is special inside them (white space, commas, braces, the word NULL).
    private static func quoted(_ text: String, into literal: inout String) {
        literal.append("\"")
        if text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            for character in text.unicodeScalars {
                if character == "\"" || character == "\\" { literal.append("\\") }
                literal.unicodeScalars.append(character)
            }
        } else {
            literal.append(text)
        }
        literal.append("\"")
    }

    private static let hexDigits = (0..<16).map { String($0, radix: 16) }
}
