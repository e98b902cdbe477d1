import BouncerDomain
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

public struct NewFlag: Sendable, Equatable {
    public var id: String
    public var messageID: String
    public var channelID: String
    public var reporterID: String
    public var reason: String
    public var details: String?
    public var custom: String?
    public var ruleID: String?
    public var createdAt: String

    public init(id: String, messageID: String, channelID: String, reporterID: String, reason: String, details: String? = nil,
                custom: String? = nil, ruleID: String? = nil, createdAt: String) {
        self.id = id
        self.messageID = messageID
        self.channelID = channelID
        self.reporterID = reporterID
        self.reason = reason
        self.details = details
        self.custom = custom
        self.ruleID = ruleID
        self.createdAt = createdAt
    }
}

public struct MessageRevision: Sendable, Equatable {
    public var revision: Int
    public var text: String
    public var state: MessageState
    public var moderation: String?
    public var createdAt: String
}

public enum SendOutcome: Sendable, Equatable {
    case created(StoredMessage)
    /// The same client id, user and text as a message already stored: a safe retry.
    case replayed(StoredMessage)
    /// The client id is taken by another user's message or another text.
    case conflict
    /// `parentID` names no message of the channel that the sender may see.
    case parentNotFound
}

/// What a change to one message does, decided from the message as it is inside the transaction.
public enum MessageChange: Sendable {
    case update(StoredMessage, keepRevision: Bool, flags: [NewFlag])
    case erase
    case unchanged
}

public protocol MessageRepository: Sendable {
    /// Stores a new message (and the flags filed with it) in one transaction, checking its
    /// parent there too, and calls `completion` once committed, from the store's thread. For
    /// callers that are not async: the send path.
    /// `events` are written only when the message is stored (not for a retry or a conflict).
    func send(_ message: StoredMessage, flags: [NewFlag], events: [NewEvent], sender: Viewer,
              completion: @escaping @Sendable (Result<SendOutcome, any Error>) -> Void)
    func message(id: String) async throws -> StoredMessage?
    /// A channel's newest messages visible to `viewer` before `sequence` (or the newest), newest first.
    func channelMessages(_ channelID: String, before sequence: Int64?, limit: Int, viewer: Viewer) async throws -> [StoredMessage]
    /// A user's messages in every state (as moderators see them): see `UserMessagesPage`.
    func userMessages(_ userID: String, before: Int64?, window: Int64, limit: Int) async throws -> UserMessagesPage
    /// A channel's oldest messages visible to `viewer` after `sequence`, oldest first: what
    /// followed a message (`?around=`).
    func channelMessages(_ channelID: String, after sequence: Int64, limit: Int, viewer: Viewer) async throws -> [StoredMessage]
    /// Reads the message and applies `change` in one transaction, so two changes to one message
    /// are decided one after the other. Returns the message as the change left it (nil when
    /// erased), or nil with `found` false when there is no such message.
    /// `events` makes the events of a change from the message before and after it (nil once
    /// erased), in the same transaction; it is not called when nothing changed.
    func change<Failure: Error>(_ id: String, _ change: @escaping @Sendable (StoredMessage) throws(Failure) -> MessageChange,
                                events: @escaping @Sendable (_ before: StoredMessage, _ after: StoredMessage?) throws -> [NewEvent])
        async throws -> (found: Bool, message: StoredMessage?)
    /// Earlier texts of a message, oldest first, after revision `after`, at most `limit`.
    func revisions(of id: String, after: Int, limit: Int) async throws -> [MessageRevision]
}

extension MessageRepository {
    public func send(_ message: StoredMessage, flags: [NewFlag], sender: Viewer,
                     completion: @escaping @Sendable (Result<SendOutcome, any Error>) -> Void) {
        send(message, flags: flags, events: [], sender: sender, completion: completion)
    }

    public func change<Failure: Error>(_ id: String, _ change: @escaping @Sendable (StoredMessage) throws(Failure) -> MessageChange)
        async throws -> (found: Bool, message: StoredMessage?) {
        try await self.change(id, change, events: { _, _ in [] })
    }
}
