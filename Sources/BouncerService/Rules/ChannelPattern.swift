import BouncerDomain
import BouncerModeration
import BouncerStore
import Foundation
import HTTPServer

enum ChannelPattern {
    /// What a channel id is refused with (the same wherever one is given).
    static let invalidIDDetail = "must be 1-64 characters of A-Z a-z 0-9 _ : . ! - (a Matrix room id, starting with !, up to 255)."

    /// A channel id itself: a pattern without a wildcard.
    static func isChannelID(_ id: String) -> Bool { IDSyntax.channel.accepts(id) }

    /// A channel id with `*` allowed as a wildcard.
    static func isValid(_ pattern: String) -> Bool { IDSyntax.channelPattern.accepts(pattern) }
}
