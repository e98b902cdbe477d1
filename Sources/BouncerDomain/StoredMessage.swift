/// A message as stored. JSON columns stay text.
public struct StoredMessage: Sendable, Equatable {
    public var id: String
    public var channelID: String
    public var userID: String
    public var text: String
    public var originalText: String?
    public var state: MessageState
    public var parentID: String?
    /// The client's `custom` object, as JSON text.
    public var custom: String?
    /// The verdict that decided the state, as JSON text.
    public var moderation: String?
    /// The action of the rule that bounced it, which decides what "Send Anyway" does.
    public var bounceAction: RuleAction?
    public var flagged: Bool
    public var edited: Bool
    public var createdAt: String
    public var updatedAt: String
    /// Orders a channel's messages; set by the store.
    public var sequence: Int64 = 0
    /// Reported by enough users to be hidden from all but its author and moderators, until reviewed.
    public var hidden = false
    /// The moderator whose review removed it: a person's decision, which its author's edits do
    /// not undo. Nil when a rule removed it, or nobody did. Set by the store's review only.
    public var removedBy: String?

    public init(id: String, channelID: String, userID: String, text: String, originalText: String?, state: MessageState,
                parentID: String?, custom: String?, moderation: String?, bounceAction: RuleAction?, flagged: Bool, edited: Bool,
                createdAt: String, updatedAt: String) {
        self.id = id
        self.channelID = channelID
        self.userID = userID
        self.text = text
        self.originalText = originalText
        self.state = state
        self.parentID = parentID
        self.custom = custom
        self.moderation = moderation
        self.bounceAction = bounceAction
        self.flagged = flagged
        self.edited = edited
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
