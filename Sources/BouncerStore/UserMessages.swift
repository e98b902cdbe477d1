import BouncerDomain
/// One page of what a user sent (`GET /v1/users/{user_id}/messages`).
///
/// No index by author is kept: on SQLite one written with every send cost a fifth of the send
/// rate, and a batched copy like the channel index's still about as much, its entries spread over
/// every active author's pages. A page instead looks through a bounded stretch of the store's
/// newest messages, by sequence, and says where it stopped, so that each read costs at most
/// `window` rows however seldom the user writes, and the next page goes on below.
public struct UserMessagesPage: Sendable {
    /// The user's messages in the stretch looked through, newest first, at most the limit.
    public var messages: [StoredMessage]
    /// The lowest sequence looked at: the next page starts below it (1 or less: nothing is left).
    public var lookedDownTo: Int64
}

extension SQLStore {
    /// The user's messages (every state) with sequences below `before` (or the newest) and at
    /// least `before - window`, newest first, at most `limit`.
    public func userMessages(_ userID: String, before: Int64?, window: Int64, limit: Int) async throws -> UserMessagesPage {
        try await read { database in
            let top = try before ?? ((database.fetchValue("SELECT max(sequence) FROM messages", as: Int64.self) ?? 0) + 1)
            // Clamped: `before` comes from a client's cursor.
            let (difference, overflowed) = top.subtractingReportingOverflow(window)
            let bottom = overflowed ? Int64.min : difference
            let messages = try database.fetchAll(
                "SELECT \(MessageSQL.columns) FROM messages WHERE sequence < ? AND sequence >= ? AND user_id = ? ORDER BY sequence DESC LIMIT ?",
                [.integer(top), .integer(bottom), .text(userID), .integer(Int64(limit))]).map(MessageSQL.message)
            return UserMessagesPage(messages: messages, lookedDownTo: bottom)
        }
    }
}
