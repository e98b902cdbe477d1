import Synchronization

/// Request ids: a valid incoming `X-Request-Id` is kept so a caller can follow its request through
/// the logs; otherwise the server makes one that is unique for the life of the process and sorts
/// by time (a random process prefix, then a counter).
public enum RequestID {
    /// The random prefix and its dash, as bytes.
    private static let prefix: [UInt8] = Array(String(UInt64.random(in: 0...UInt64.max), radix: 36).utf8) + [UInt8(ascii: "-")]
    private static let counter = Atomic<UInt64>(0)
    private static let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)

    /// Written byte by byte into the string's own storage, for every request without an id of
    /// its own: joining the prefix, the dash and the counter made a string for each step.
    /// The id of a request: its own valid `X-Request-Id`, else a new one.
    static func `for`(_ head: RequestHead) -> String {
        if let incoming = head.headers["x-request-id"], isValid(incoming) { return incoming }
        return make()
    }

    public static func make() -> String {
        let value = counter.add(1, ordering: .relaxed).newValue
        var digitCount = 1
        var rest = value / 36
        while rest > 0 {
            digitCount += 1
            rest /= 36
        }
        return String(unsafeUninitializedCapacity: prefix.count + digitCount) { output in
            _ = output.initialize(from: prefix)
            var remaining = value
            for position in (prefix.count..<prefix.count + digitCount).reversed() {
                output[position] = digits[Int(remaining % 36)]
                remaining /= 36
            }
            return prefix.count + digitCount
        }
    }

    /// An incoming id is kept when it is 1-128 characters of `[A-Za-z0-9._:-]`: anything else could
    /// carry header or log injection.
    public static func isValid(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= 128 else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: ":"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }
}
