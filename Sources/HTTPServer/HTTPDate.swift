import Glibc
import Locking

/// The `Date` header (IMF-fixdate, RFC 9110 section 5.6.7), formatted at most once a second.
final class HTTPDate: Sendable {
    static let shared = HTTPDate()

    /// The second it was formatted for, and the whole field, `Date: …` and its CRLF.
    private let cache = Locked<(second: Int, field: [UInt8])>((-1, []))

    /// Appends the `Date` field line of this second.
    func appendField(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: currentField())
    }

    private func currentField() -> [UInt8] {
        var seconds = time(nil)
        return cache.withLock { cached in
            if cached.second != seconds {
                cached = (seconds, Self.name + Array(Self.format(&seconds).utf8) + [ASCII.cr, ASCII.lf])
            }
            return cached.field
        }
    }

    private static let name = Array("Date: ".utf8)
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func format(_ seconds: inout time_t) -> String {
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
