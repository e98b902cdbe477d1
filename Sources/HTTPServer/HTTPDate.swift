import Glibc

/// The `Date` header field (IMF-fixdate, RFC 9110 section 5.6.7) of the responses one event loop
/// writes, formatted at most once a second. Each loop keeps its own and touches it only on its
/// thread: one shared across the loops took a lock for every response.
struct HTTPDateField {
    private var second: time_t = -1
    private var bytes: [UInt8] = []

    /// `Date: …` and its CRLF, for this second.
    mutating func current() -> [UInt8] {
        var now = time(nil)
        if now != second {
            second = now
            bytes = Array("Date: \(Self.format(&now))\r\n".utf8)
        }
        return bytes
    }

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
