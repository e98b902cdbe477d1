/// SQL written with `?` or `?N` placeholders, as the SQLite store writes it, numbered for
/// PostgreSQL (`$1`, `$2`, ...; `?N` keeps its number). Question marks inside string literals,
/// quoted identifiers and comments are left alone.
enum PlaceholderRewriter {
    static func numbered(_ sql: String) -> String {
        let bytes = Array(sql.utf8)
        guard bytes.contains(UInt8(ascii: "?")) else { return sql }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var next = 0
        var quote: UInt8?  // ' or " while inside a literal or identifier
        var lineComment = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if lineComment {
                if byte == UInt8(ascii: "\n") { lineComment = false }
            } else if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
            } else if byte == UInt8(ascii: "-"), index < bytes.count, bytes[index] == UInt8(ascii: "-") {
                lineComment = true
            } else if byte == UInt8(ascii: "?") {
                output.append(UInt8(ascii: "$"))
                let digits = bytes[index...].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                if digits.isEmpty {
                    next += 1
                    output.append(contentsOf: String(next).utf8)
                } else {
                    output.append(contentsOf: digits)
                    index += digits.count
                }
                continue
            }
            output.append(byte)
        }
        return String(decoding: output, as: UTF8.self)
    }
}
