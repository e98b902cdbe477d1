import BouncerModeration
import BouncerStore
import Foundation
import HTTPServer

enum ChannelPattern {
    /// What a channel id is refused with (the same wherever one is given).
    static let invalidIDDetail = "must be 1-64 characters of A-Z a-z 0-9 _ : . ! - (a Matrix room id, starting with !, up to 255)."

    /// Matrix room ids (`!opaque:server.name`) name their server, which may be long: they are
    /// taken up to Matrix's own limit.
    static let maxMatrixRoomIDLength = 255

    /// A channel id itself: a pattern without a wildcard.
    static func isChannelID(_ id: String) -> Bool {
        isValid(id) && !id.utf8.contains(UInt8(ascii: "*"))
    }

    /// A channel id (1-64 of `[A-Za-z0-9_:.!-]`, or up to 255 for a Matrix room id, which starts
    /// with `!`) with `*` allowed as a wildcard.
    static func isValid(_ pattern: String) -> Bool {
        let bytes = pattern.utf8
        guard !bytes.isEmpty, bytes.count <= (bytes.first == UInt8(ascii: "!") ? maxMatrixRoomIDLength : 64) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "-"), UInt8(ascii: "*"):
                true
            default:
                false
            }
        }
    }
}
