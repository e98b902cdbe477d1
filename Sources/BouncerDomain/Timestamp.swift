import Foundation
import Locking

/// RFC 3339 timestamps in UTC with milliseconds, the one format the service stores and returns.
public enum Timestamp {
    public static func now() -> String {
        String(unsafeUninitializedCapacity: length) { writeNow(into: $0) }
    }

    /// Appends the time now, as `now()` writes it, without making a string of it first.
    public static func appendNow(to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { buffer in
            bytes.append(contentsOf: buffer.prefix(writeNow(into: buffer)))
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    private static let length = 24

    private static func writeNow(into bytes: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let seconds = Int(spec.tv_sec)
        let milliseconds = Int(spec.tv_nsec) / 1_000_000
        // Every stored row and log line asks for the time: the part up to the second is
        // formatted once a second, the milliseconds each time.
        let prefix = secondPrefix.withLock { cached -> [UInt8] in
            if cached.second != seconds {
                cached = (seconds, Array(format(seconds: seconds, milliseconds: 0).utf8.prefix(20)))
            }
            return cached.prefix
        }
        _ = bytes.initialize(from: prefix)
        bytes[prefix.count] = UInt8(48 + milliseconds / 100)
        bytes[prefix.count + 1] = UInt8(48 + milliseconds / 10 % 10)
        bytes[prefix.count + 2] = UInt8(48 + milliseconds % 10)
        bytes[prefix.count + 3] = UInt8(ascii: "Z")
        return prefix.count + 4
    }

    private static let secondPrefix = Locked<(second: Int, prefix: [UInt8])>((-1, []))

    /// Seconds since 1970 of a time as `now()` writes it; nil for any other text.
    public static func epochSeconds(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count == length, bytes[4] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"), bytes[23] == UInt8(ascii: "Z") else { return nil }
        func number(_ offset: Int, _ digits: Int) -> Int? {
            var value = 0
            for byte in bytes[offset..<offset + digits] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
              let minute = number(14, 2), let second = number(17, 2), let milliseconds = number(20, 3) else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Double(timegm(&parts)) + Double(milliseconds) / 1000
    }

    public static func format(_ date: Date) -> String {
        // Whole milliseconds first, so 0.999 s (not exactly representable) stays 999 ms.
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, remainder) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        return remainder >= 0 ? format(seconds: seconds, milliseconds: remainder) : format(seconds: seconds - 1, milliseconds: remainder + 1000)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, written digit by digit (`now()` asks for it once a second).
    public static func format(seconds: Int, milliseconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var bytes = [UInt8](repeating: 0, count: 24)
        func put(_ value: Int, at offset: Int, digits: Int) {
            var value = value
            for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                bytes[index] = UInt8(48 + value % 10)
                value /= 10
            }
        }
        put(Int(parts.tm_year) + 1900, at: 0, digits: 4)
        bytes[4] = UInt8(ascii: "-")
        put(Int(parts.tm_mon) + 1, at: 5, digits: 2)
        bytes[7] = UInt8(ascii: "-")
        put(Int(parts.tm_mday), at: 8, digits: 2)
        bytes[10] = UInt8(ascii: "T")
        put(Int(parts.tm_hour), at: 11, digits: 2)
        bytes[13] = UInt8(ascii: ":")
        put(Int(parts.tm_min), at: 14, digits: 2)
        bytes[16] = UInt8(ascii: ":")
        put(Int(parts.tm_sec), at: 17, digits: 2)
        bytes[19] = UInt8(ascii: ".")
        put(milliseconds, at: 20, digits: 3)
        bytes[23] = UInt8(ascii: "Z")
        return String(decoding: bytes, as: UTF8.self)
    }
}
