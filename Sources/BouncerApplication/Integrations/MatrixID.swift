import BouncerDomain

/// Matrix's identifiers, checked before they become Bouncer's.
package enum MatrixID {
    /// `$` and the rest of an event id (a hash in base64, URL-safe or not, or `opaque:server` in
    /// old rooms), at most 255 bytes.
    package static func isEventID(_ id: String) -> Bool {
        let bytes = id.utf8
        guard bytes.count >= 2, bytes.count <= 255, bytes.first == UInt8(ascii: "$") else { return false }
        return bytes.dropFirst().allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: ":"),
                 UInt8(ascii: "."):
                true
            default:
                false
            }
        }
    }

    /// `@localpart:server`, which Bouncer's user ids take as they are.
    package static func isUserID(_ id: String) -> Bool {
        id.utf8.first == UInt8(ascii: "@") && id.utf8.contains(UInt8(ascii: ":")) && UserID.isValid(id)
    }

    /// `!opaque:server`, or `!` and a hash in URL-safe base64 (room version 12 and later), which
    /// Bouncer's channel ids take as they are.
    package static func isRoomID(_ id: String) -> Bool {
        id.utf8.first == UInt8(ascii: "!") && id.utf8.count >= 2 && ChannelPattern.isChannelID(id)
    }
}
