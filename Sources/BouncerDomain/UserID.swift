/// User ids: 1-255 characters of `[A-Za-z0-9_.@:|=+-]`, the characters chat backends use in ids
/// (Matrix's `@localpart:server`, whose localparts may hold `=` and `+`, up to Matrix's 255).
/// Anything else in a signed token is refused rather than carried into logs and storage.
public enum UserID {
    public static let maxLength = 255

    public static func isValid(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= maxLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "@"), UInt8(ascii: ":"), UInt8(ascii: "|"), UInt8(ascii: "-"),
                 UInt8(ascii: "="), UInt8(ascii: "+"):
                true
            default:
                false
            }
        }
    }

    /// Ids no person may have: `system` files the rules' own flags (`SystemFlag.reporterID`), and
    /// a user of that name would file flags that look like theirs.
    public static let reserved: Set<String> = [SystemFlag.reporterID]

    /// A valid id that a person may have.
    public static func isPersonal(_ id: String) -> Bool { isValid(id) && !reserved.contains(id) }
}
