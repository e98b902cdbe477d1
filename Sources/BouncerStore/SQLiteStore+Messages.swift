import BouncerDomain
extension SQLiteStore: MessageRepository {
    private static let channelPage = ChannelIndex.pageSQL(columns: MessageSQL.columnList, visibleToViewer: false)
    private static let channelPageForViewer = ChannelIndex.pageSQL(columns: MessageSQL.columnList, visibleToViewer: true)

    public func send(_ message: StoredMessage, flags: [NewFlag], sender: Viewer,
                     completion: @escaping @Sendable (Result<SendOutcome, any Error>) -> Void) {
        // Made here, on the caller's thread: the writer's thread is the one every send waits for.
        let values = Self.values(message)
        // Without system flags, the insert below is the only statement that changes anything.
        writer.write(oneStatement: flags.isEmpty, { database in
            // A retry is answered with what it first made, whatever has happened to the parent since.
            // Most sends are new and no reply: those skip this lookup, and find a taken id on insert.
            if message.parentID != nil, let existing = try MessageSQL.read(database, id: message.id) {
                return Self.retried(message, found: existing)
            }
            if let parentID = message.parentID {
                guard let parent = try MessageSQL.read(database, id: parentID), parent.channelID == message.channelID,
                      MessageVisibility.isVisible(state: parent.state, hidden: parent.hidden, authorID: parent.userID, to: sender) else {
                    return .parentNotFound
                }
            }
            var stored = message
            try database.execute(Self.insertMessage, values)
            if database.changes == 0 {
                // The id is taken: by this same message sent before (a retry), or by another one.
                return try MessageSQL.read(database, id: message.id).map { Self.retried(message, found: $0) } ?? .conflict
            }
            stored.sequence = database.lastInsertRowID
            try MessageSQL.insert(flags, database)
            return SendOutcome.created(stored)
        }, completion: completion)
    }

    public func message(id: String) async throws -> StoredMessage? {
        try await readers.read { database in try MessageSQL.read(database, id: id) }
    }

    public func channelMessages(_ channelID: String, before sequence: Int64?, limit: Int, viewer: Viewer) async throws -> [StoredMessage] {
        let page: [DatabaseValue] = [.text(channelID), .integer(sequence ?? .max), .integer(Int64(limit))]
        let (query, arguments) = viewer.seesEverything ? (Self.channelPage, page) : (Self.channelPageForViewer, page + [.text(viewer.userID)])
        return try await readers.read { database in try database.fetchAll(query, arguments).map(MessageSQL.message) }
    }

    public func change<Failure: Error>(_ id: String, _ change: @escaping @Sendable (StoredMessage) throws(Failure) -> MessageChange)
        async throws -> (found: Bool, message: StoredMessage?) {
        try await writer.write { database in
            guard let current = try MessageSQL.read(database, id: id) else { return (false, nil) }
            switch try change(current) {
            case .unchanged:
                return (true, current)
            case .erase:
                try database.execute("DELETE FROM messages WHERE id = ?", [.text(id)])
                return (true, nil)
            case .update(let updated, let keepRevision, let flags):
                if keepRevision {
                    let next = (try database.fetchValue("SELECT coalesce(max(revision), 0) + 1 FROM message_revisions WHERE message_id = ?",
                                                        [.text(id)], as: Int.self)) ?? 1
                    try database.execute(
                        "INSERT INTO message_revisions (message_id, revision, text, state, moderation, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                        [.text(id), .integer(Int64(next)), .text(current.originalText ?? current.text), current.state.databaseValue,
                         current.moderation.databaseValue, .text(updated.updatedAt)])
                }
                try database.execute(
                    """
                    UPDATE messages SET text = ?, original_text = ?, state = ?, moderation = ?, bounce_action = ?, flagged = ?,
                        edited = ?, updated_at = ? WHERE id = ?
                    """,
                    [.text(updated.text), updated.originalText.databaseValue, updated.state.databaseValue,
                     updated.moderation.databaseValue, updated.bounceAction.databaseValue,
                     .integer(updated.flagged ? 1 : 0), .integer(updated.edited ? 1 : 0), .text(updated.updatedAt), .text(id)])
                try MessageSQL.insert(flags, database)
                var result = updated
                result.sequence = current.sequence
                return (true, result)
            }
        }
    }

    public func revisions(of id: String, after: Int, limit: Int) async throws -> [MessageRevision] {
        try await readers.read { database in
            try database.fetchAll(
                "SELECT revision, text, state, moderation, created_at FROM message_revisions WHERE message_id = ? AND revision > ? ORDER BY revision LIMIT ?",
                [.text(id), .integer(Int64(after)), .integer(Int64(limit))]).map { row in
                MessageRevision(revision: row.get("revision") ?? 0, text: row.get("text") ?? "", state: row.get("state") ?? .delivered,
                                moderation: row.get("moderation"), createdAt: row.get("created_at") ?? "")
            }
        }
    }

    /// A send whose id is taken: a retry of `message` when the stored one matches it.
    private static func retried(_ message: StoredMessage, found existing: StoredMessage) -> SendOutcome {
        existing.userID == message.userID && existing.text == message.text && existing.channelID == message.channelID
            ? .replayed(existing) : .conflict
    }

    private static let insertMessage = FrequentSQL(
        """
        INSERT INTO messages (id, channel_id, user_id, text, original_text, state, parent_id, custom, moderation,
            bounce_action, flagged, edited, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO NOTHING
        """)

    private static func values(_ message: StoredMessage) -> [DatabaseValue] {
        [.text(message.id), .text(message.channelID), .text(message.userID), .text(message.text),
         message.originalText.databaseValue, message.state.databaseValue, message.parentID.databaseValue,
         message.custom.databaseValue, message.moderation.databaseValue, message.bounceAction.databaseValue, .integer(message.flagged ? 1 : 0), .integer(message.edited ? 1 : 0),
         .text(message.createdAt), .text(message.updatedAt)]
    }

}

