/// How an id of each kind is written: a length, and ASCII letters and digits with a few marks.
/// The one place ids are checked, for tokens, paths, bodies and chat servers alike: anything
/// else is refused rather than carried into logs and storage.
public struct IDSyntax: Sendable {
    public let maxLength: Int
    /// The marks allowed beside `A-Z a-z 0-9`.
    public let marks: [UInt8]
    /// A longer limit for ids that start with this byte: a Matrix room id (`!opaque:server`)
    /// names its server, which may be long, and is taken up to Matrix's own limit.
    let longer: (first: UInt8, maxLength: Int)?

    init(maxLength: Int, marks: String, longer: (first: UInt8, maxLength: Int)? = nil) {
        self.maxLength = maxLength
        self.marks = Array(marks.utf8)
        self.longer = longer
    }

    public func accepts(_ id: String) -> Bool {
        let bytes = id.utf8
        guard let first = bytes.first else { return false }
        let limit = longer.map { first == $0.first ? $0.maxLength : maxLength } ?? maxLength
        guard bytes.count <= limit else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: marks.contains(byte)
            }
        }
    }

    /// Users: the characters chat backends use in ids (Matrix's `@localpart:server`, whose
    /// localparts may hold `=` and `+`, up to Matrix's 255).
    public static let user = IDSyntax(maxLength: 255, marks: "_.@:|=+-")
    /// Channels: 1-64, or a Matrix room id up to 255.
    public static let channel = IDSyntax(maxLength: 64, marks: "_:.!-", longer: (UInt8(ascii: "!"), 255))
    /// A rule's channels: a channel id with `*` as a wildcard.
    public static let channelPattern = IDSyntax(maxLength: 64, marks: "_:.!-*", longer: (UInt8(ascii: "!"), 255))
    /// Messages (a client's message id, a reply's parent).
    public static let message = IDSyntax(maxLength: 100, marks: "_-")
}
