import BouncerDomain
import Foundation

/// A rule's channels, and a channel id, checked by `IDSyntax`.
package enum ChannelPattern {
    /// What a channel id is refused with (the same wherever one is given).
    package static let invalidIDDetail = "must be 1-64 characters of A-Z a-z 0-9 _ : . ! - (a Matrix room id, starting with !, up to 255)."

    /// A channel id itself: a pattern without a wildcard.
    package static func isChannelID(_ id: String) -> Bool { IDSyntax.channel.accepts(id) }

    /// A channel id with `*` allowed as a wildcard.
    package static func isValid(_ pattern: String) -> Bool { IDSyntax.channelPattern.accepts(pattern) }
}
