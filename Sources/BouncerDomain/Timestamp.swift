import Foundation

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
        write(seconds: Int(spec.tv_sec), milliseconds: Int(spec.tv_nsec) / 1_000_000, into: bytes)
        return length
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` into the first 24 bytes of `bytes`. The date is worked out from
    /// the count of days (the proleptic Gregorian calendar's 400-year eras, as C++'s `<chrono>`
    /// does it), not by `gmtime`: every stored row and log line asks for the time, and this takes
    /// no lock and no call into the C library. Years outside 0...9999 keep only four digits.
    static func write(seconds: Int, milliseconds: Int, into bytes: UnsafeMutableBufferPointer<UInt8>) {
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        // Days since 0000-03-01, so that a leap day ends its year; eras of 146,097 days.
        let (era, dayOfEra) = floorDivision(days + 719_468, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func put(_ value: Int, at offset: Int, digits: Int) {
            var value = abs(value)
            for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                bytes[index] = UInt8(48 + value % 10)
                value /= 10
            }
        }
        put(year, at: 0, digits: 4)
        bytes[4] = UInt8(ascii: "-")
        put(month, at: 5, digits: 2)
        bytes[7] = UInt8(ascii: "-")
        put(day, at: 8, digits: 2)
        bytes[10] = UInt8(ascii: "T")
        put(secondOfDay / 3_600, at: 11, digits: 2)
        bytes[13] = UInt8(ascii: ":")
        put(secondOfDay / 60 % 60, at: 14, digits: 2)
        bytes[16] = UInt8(ascii: ":")
        put(secondOfDay % 60, at: 17, digits: 2)
        bytes[19] = UInt8(ascii: ".")
        put(milliseconds, at: 20, digits: 3)
        bytes[23] = UInt8(ascii: "Z")
    }

    /// The quotient rounded down, and the remainder that goes with it (never negative).
    private static func floorDivision(_ value: Int, _ divisor: Int) -> (quotient: Int, remainder: Int) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

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

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public static func format(seconds: Int, milliseconds: Int) -> String {
        String(unsafeUninitializedCapacity: length) { bytes in
            write(seconds: seconds, milliseconds: milliseconds, into: bytes)
            return length
        }
    }
}
