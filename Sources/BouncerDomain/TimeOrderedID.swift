import Glibc
import Locking

/// Server-made ids: 26 characters of Crockford base32 (ULID layout), 48 bits of milliseconds
/// then 80 bits that are random at each new millisecond and count up within it, so ids sort in
/// the order they were made, even within one millisecond, across the whole process.
public enum TimeOrderedID {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    private static let state = Locked<(milliseconds: UInt64, high: UInt16, low: UInt64)>((0, 0, 0))

    public static func make(milliseconds: UInt64 = currentMilliseconds()) -> String {
        let (time, high, low) = state.withLock { state -> (UInt64, UInt16, UInt64) in
            if milliseconds > state.milliseconds {
                let random = randomBits()
                state = (milliseconds, UInt16(truncatingIfNeeded: random.high), random.low >> 1)
            } else {
                // Same (or an earlier, after a clock step back) millisecond: count up from the last.
                state.low &+= 1
                if state.low == 0 { state.high &+= 1 }
            }
            return state
        }
        // Written straight into the string's storage: one allocation for each id.
        return String(unsafeUninitializedCapacity: 26) { bytes in
            alphabet.withUnsafeBufferPointer { alphabet in
                var value = time
                for index in stride(from: 9, through: 0, by: -1) {
                    bytes[index] = alphabet[Int(value & 31)]
                    value >>= 5
                }
                // 80 random bits: 16 high, 64 low, as 16 characters.
                var randomHigh = UInt64(high)
                var randomLow = low
                for index in stride(from: 25, through: 10, by: -1) {
                    bytes[index] = alphabet[Int(randomLow & 31)]
                    randomLow = randomLow >> 5 | (randomHigh & 31) << 59
                    randomHigh >>= 5
                }
            }
            return 26
        }
    }

    /// 128 random bits in one call to the system's generator (`arc4random_buf`): the standard
    /// library's makes a system call for each 64 bits.
    private static func randomBits() -> (high: UInt64, low: UInt64) {
        var bits: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &bits) { arc4random_buf($0.baseAddress!, $0.count) }
        return bits
    }

    public static func currentMilliseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000
    }
}
