import BouncerDomain
/// What a change to one message does (an edit, a Send Anyway, a delete), planned from the message
/// as it was read.
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
    /// Applies `change`, planned from the message `expected`, in one transaction with its
    /// `events` and its `audit` entry (a moderator's act; written even when the change leaves the
    /// message as it was), while the message is still `expected`; `stale` when it changed or went
    /// since. The message as the change left it (nil once erased).
    func apply(_ change: MessageChange, to expected: StoredMessage, events: [NewEvent], audit: AuditEntry?) async throws -> Planned<StoredMessage?>
    /// Earlier texts of a message, oldest first, after revision `after`, at most `limit`.
    func revisions(of id: String, after: Int, limit: Int) async throws -> [MessageRevision]
}

extension MessageRepository {
    public func apply(_ change: MessageChange, to expected: StoredMessage, events: [NewEvent]) async throws -> Planned<StoredMessage?> {
        try await apply(change, to: expected, events: events, audit: nil)
    }

    public func send(_ message: StoredMessage, flags: [NewFlag], sender: Viewer,
                     completion: @escaping @Sendable (Result<SendOutcome, any Error>) -> Void) {
        send(message, flags: flags, events: [], sender: sender, completion: completion)
    }
}
