import BouncerDomain
import BouncerStore

/// What its author's edit may do to a message, by where the message stands. Moderation holds
/// against the person it is about: an edit is the way out of a bounce, never out of a
/// moderator's removal or a shadow.
package enum EditRule: Equatable {
    /// Deleted: there is nothing left to edit (409).
    case refused
    /// Removed by a moderator's review: the new text is kept (the old one in the revisions, for
    /// moderators), the message stays removed.
    case keepsState
    /// Judged again by its new text. `refusalIsAnError`: its author believes it delivered
    /// (delivered, or shadowed, which looks delivered to them), so a text that would be bounced or
    /// removed is refused (422) and the message left as it is. A bounced message, or one a rule
    /// removed, becomes what the new text earns, as a new send would.
    case judgedAgain(refusalIsAnError: Bool)

    package init(_ message: StoredMessage) {
        switch message.state {
        case .deleted: self = .refused
        case .removed where message.removedBy != nil: self = .keepsState
        case .delivered, .shadowed: self = .judgedAgain(refusalIsAnError: true)
        case .bounced, .removed: self = .judgedAgain(refusalIsAnError: false)
        }
    }
}
