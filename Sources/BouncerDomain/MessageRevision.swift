/// An earlier text of a message, kept when it was edited or resent.
public struct MessageRevision: Sendable, Equatable {
    public var revision: Int
    public var text: String
    public var state: MessageState
    public var moderation: String?
    public var createdAt: String

    public init(revision: Int, text: String, state: MessageState, moderation: String?, createdAt: String) {
        self.revision = revision
        self.text = text
        self.state = state
        self.moderation = moderation
        self.createdAt = createdAt
    }
}
