/// Writing text into byte buffers, for the code that writes something for every request (a
/// response's head, an access log line): `append(contentsOf: string.utf8)` walks the string
/// through the generic sequence path, and `String(number)` formats into a string that is then
/// copied again.
extension Array where Element == UInt8 {
    /// Appends the string's UTF-8 bytes in one copy.
    @inlinable
    public mutating func appendUTF8(_ string: String) {
        var string = string
        string.withUTF8 { append(contentsOf: $0) }
    }

    /// Appends a literal's bytes: no string to walk, and no array to retain and release.
    @inlinable
    public mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// Appends `value` in decimal, as `String(value)` writes it.
    public mutating func appendDecimal(_ value: Int) {
        // Twenty bytes hold every Int64 in decimal with its sign.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = value.magnitude
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(48 + magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
