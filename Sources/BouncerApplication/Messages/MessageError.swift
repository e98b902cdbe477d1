import BouncerDomain
import BouncerModeration

/// What the message use cases refuse, whoever asked. The API answers each with a problem
/// (`MessageError.problem`); a chat server's hook answers in its own shape, and tells a refusal
/// by its case, not by a code string.
package enum MessageError: Error, Sendable, Equatable {
    /// The sender is banned (a shadow ban is not refused: what they send is kept shadowed).
    case userBanned
    /// The text is empty, longer than the service's limit, or blank.
    case textLength(max: Int)
    case textBlank
    /// `custom` is larger than `MessageText.maxCustomBytes`.
    case customTooLarge
    /// No message the caller may see has that id.
    case notFound
    /// The caller may see the message, but only its author may do this.
    case notAuthor
    /// A deleted message cannot be edited.
    case deleted
    /// Only a bounced message can be sent anyway.
    case notBounced
    /// The API's send named an id another message holds.
    case idTaken
    /// `parent_id` is not a message of the channel.
    case parentNotFound
    /// The new text of a message its author believes delivered would be bounced or removed: the
    /// message is left as it was.
    case editRefused(Verdict, RuleAction, text: String)

    /// Whether it refuses a chat server's edit as Matrix refuses a message (not an error of the request).
    package var refusesEdit: Bool {
        switch self {
        case .editRefused, .deleted: true
        default: false
        }
    }
}
