/// What storing a new message came to.
public enum SendOutcome: Sendable, Equatable {
    case created(StoredMessage)
    /// The same client id, user and text as a message already stored: a safe retry.
    case replayed(StoredMessage)
    /// The client id is taken by another user's message or another text.
    case conflict
    /// `parentID` names no message of the channel that the sender may see.
    case parentNotFound
}
