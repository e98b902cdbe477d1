/// Apple's `Localizable.strings` format, as iOS apps use it to override an SDK's texts:
///
///     /* A comment */
///     "message.moderation.alert.title" = "Êtes-vous sûr ?";
///     // Another comment
///     unquoted_key = "value";
///
/// Quoted strings take the escapes `\"`, `\\`, `\n`, `\t`, `\r`, `\'`, `\0` and `\Uxxxx` or
/// `\uxxxx` (UTF-16 code units, so a surrogate pair is two of them). The file may be UTF-8 (with
/// or without a byte-order mark) or UTF-16 with a byte-order mark. A later entry for a key
/// replaces an earlier one, as Apple's parser does.
public enum StringsFile {
    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        /// 1-based position of the fault, in characters of the decoded text.
        public var line: Int
        public var column: Int
        public var reason: String

        public var description: String { "line \(line), column \(column): \(reason)" }
    }

    /// Most entries in one file.
    public static let maxEntries = 10_000

    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> [(key: String, value: String)] {
        let text = try decode(bytes)
        var parser = Parser(scalars: Array(text.unicodeScalars))
        return try parser.entries()
    }

    /// Entries as a dictionary, later entries winning.
    public static func parseDictionary(_ bytes: [UInt8]) throws(ParseError) -> [String: String] {
        var result: [String: String] = [:]
        for entry in try parse(bytes) { result[entry.key] = entry.value }
        return result
    }

    static func decode(_ bytes: [UInt8]) throws(ParseError) -> String {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let littleEndian = bytes[0] == 0xFF
            let body = bytes.dropFirst(2)
            guard body.count % 2 == 0 else { throw ParseError(line: 1, column: 1, reason: "UTF-16 text with an odd number of bytes") }
            var units: [UInt16] = []
            units.reserveCapacity(body.count / 2)
            var index = body.startIndex
            while index < body.endIndex {
                let first = UInt16(body[index]), second = UInt16(body[index + 1])
                units.append(littleEndian ? first | second << 8 : first << 8 | second)
                index += 2
            }
            guard let text = String(validating: units, as: UTF16.self) else {
                throw ParseError(line: 1, column: 1, reason: "invalid UTF-16 (an unpaired surrogate)")
            }
            return text
        }
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        guard let text = String(validating: body, as: UTF8.self) else {
            // Say where: count the lines before the first invalid byte.
            var valid = body.count
            for end in stride(from: body.count, through: 0, by: -1) where String(validating: body[..<end], as: UTF8.self) != nil {
                valid = end
                break
            }
            let prefix = String(decoding: body[..<valid], as: UTF8.self)
            let line = prefix.split(separator: "\n", omittingEmptySubsequences: false)
            throw ParseError(line: line.count, column: (line.last?.count ?? 0) + 1,
                             reason: "not UTF-8 (and no UTF-16 byte-order mark)")
        }
        return text
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0
        var line = 1
        var column = 1

        init(scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        func error(_ reason: String) -> ParseError { ParseError(line: line, column: column, reason: reason) }

        var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
        var next: Unicode.Scalar? { index + 1 < scalars.count ? scalars[index + 1] : nil }

        mutating func advance() {
            if scalars[index] == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
            index += 1
        }

        mutating func entries() throws(ParseError) -> [(key: String, value: String)] {
            var result: [(key: String, value: String)] = []
            while true {
                try skipTrivia()
                guard current != nil else { return result }
                guard result.count < StringsFile.maxEntries else { throw error("more than \(StringsFile.maxEntries) entries") }
                let key = try token(what: "a key")
                try skipTrivia()
                if current == ";" {
                    // `"key";` is shorthand for `"key" = "key";`.
                    advance()
                    result.append((key, key))
                    continue
                }
                guard current == "=" else { throw error("expected `=` after the key") }
                advance()
                try skipTrivia()
                let value = try token(what: "a value")
                try skipTrivia()
                guard current == ";" else { throw error("expected `;` after the value") }
                advance()
                result.append((key, value))
            }
        }

        /// Whitespace and comments.
        mutating func skipTrivia() throws(ParseError) {
            while let scalar = current {
                if scalar.properties.isWhitespace {
                    advance()
                } else if scalar == "/" && next == "*" {
                    let start = error("a comment is not closed")
                    advance()
                    advance()
                    while !(current == "*" && next == "/") {
                        guard current != nil else { throw start }
                        advance()
                    }
                    advance()
                    advance()
                } else if scalar == "/" && next == "/" {
                    while let character = current, character != "\n" { advance() }
                } else {
                    return
                }
            }
        }

        mutating func token(what: String) throws(ParseError) -> String {
            guard let first = current else { throw error("expected \(what), found the end of the file") }
            if first == "\"" { return try quoted() }
            var text = String.UnicodeScalarView()
            while let scalar = current, Self.isUnquotedCharacter(scalar) {
                text.append(scalar)
                advance()
            }
            guard !text.isEmpty else { throw error("expected \(what) in double quotes") }
            return String(text)
        }

        static func isUnquotedCharacter(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_", ".", "$", ":", "/", "-": true
            default: false
            }
        }

        mutating func quoted() throws(ParseError) -> String {
            let start = error("a string is not closed")
            advance()
            var units: [UInt16] = []
            // Where a `\U` high surrogate was written, until its low half follows.
            var openSurrogate: ParseError?
            while true {
                guard let scalar = current else { throw start }
                if scalar == "\"" {
                    if let openSurrogate { throw openSurrogate }
                    advance()
                    break
                }
                if scalar != "\\" {
                    if let openSurrogate { throw openSurrogate }
                    units.append(contentsOf: UTF16.encode(scalar)!)
                    advance()
                    continue
                }
                let escapeError = error("an unknown escape")
                if let openSurrogate, current != "\\" || !(next == "U" || next == "u") { throw openSurrogate }
                advance()
                guard let escaped = current else { throw start }
                advance()
                switch escaped {
                case "\"", "\\", "'", "/": units.append(UInt16(escaped.value))
                case "n": units.append(10)
                case "t": units.append(9)
                case "r": units.append(13)
                case "0": units.append(0)
                case "a": units.append(7)
                case "b": units.append(8)
                case "f": units.append(12)
                case "v": units.append(11)
                case "U", "u":
                    var value: UInt16 = 0
                    for _ in 0..<4 {
                        guard let digit = current, let nibble = Self.hexValue(digit) else {
                            throw ParseError(line: escapeError.line, column: escapeError.column, reason: "`\\U` needs four hexadecimal digits")
                        }
                        value = value << 4 | nibble
                        advance()
                    }
                    let unpaired = ParseError(line: escapeError.line, column: escapeError.column,
                                              reason: "a `\\U` escape leaves an unpaired surrogate")
                    switch value {
                    case 0xD800...0xDBFF:
                        if openSurrogate != nil { throw openSurrogate! }
                        openSurrogate = unpaired
                    case 0xDC00...0xDFFF:
                        guard openSurrogate != nil else { throw unpaired }
                        openSurrogate = nil
                    default:
                        if let openSurrogate { throw openSurrogate }
                    }
                    units.append(value)
                case "\n":
                    units.append(10)  // A backslash before a line break keeps the break.
                default:
                    throw escapeError
                }
            }
            guard let text = String(validating: units, as: UTF16.self) else {
                throw error("a `\\U` escape leaves an unpaired surrogate")
            }
            return text
        }

        static func hexValue(_ scalar: Unicode.Scalar) -> UInt16? {
            switch scalar {
            case "0"..."9": UInt16(scalar.value - 48)
            case "a"..."f": UInt16(scalar.value - 87)
            case "A"..."F": UInt16(scalar.value - 55)
            default: nil
            }
        }
    }
}
