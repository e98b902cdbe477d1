import Synchronization

/// Request ids: a valid incoming `X-Request-Id` is kept so a caller can follow its request through
/// the logs; otherwise the server makes one that is unique for the life of the process and sorts
/// by time (a random process prefix, then a counter).
public enum RequestID {
    private static let prefix: String = {
        let random = UInt64.random(in: 0...UInt64.max)
        return String(random, radix: 36)
    }()
    private static let counter = Atomic<UInt64>(0)

    public static func make() -> String {
        let value = counter.add(1, ordering: .relaxed).newValue
        return prefix + "-" + String(value, radix: 36)
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
