import BouncerDomain

/// The messages table as both stores read and write it: its columns, a message by id, a row as a
/// `StoredMessage`, and the flags filed with a message.
public enum MessageSQL {
    public static let columnList = ["sequence", "id", "channel_id", "user_id", "text", "original_text", "state", "parent_id", "custom",
                             "moderation", "bounce_action", "flagged", "edited", "created_at", "updated_at", "hidden", "removed_by"]
    public static let columns = columnList.joined(separator: ", ")

    public static func read(_ database: some SQLConnection, id: String) throws -> StoredMessage? {
        try database.fetchOne("SELECT \(columns) FROM messages WHERE id = ?", [.text(id)]).map(message)
    }

    public static func message(_ row: Row) throws(RowDecodingError) -> StoredMessage {
        var message = StoredMessage(
            id: try row.decode("id"), channelID: try row.decode("channel_id"), userID: try row.decode("user_id"),
            text: try row.decode("text"), originalText: try row.decodeIfPresent("original_text"), state: try row.decode("state"),
            parentID: try row.decodeIfPresent("parent_id"), custom: try row.decodeIfPresent("custom"), moderation: try row.decodeIfPresent("moderation"),
            bounceAction: try row.decodeIfPresent("bounce_action"), flagged: try row.decode("flagged"), edited: try row.decode("edited"),
            createdAt: try row.decode("created_at"), updatedAt: try row.decode("updated_at"))
        message.sequence = try row.decode("sequence")
        message.hidden = try row.decode("hidden")
        message.removedBy = try row.decodeIfPresent("removed_by")
        return message
    }

    /// Writes what a moderator's decision changes of a message (its state, whether it is hidden,
    /// who removed it, and when it changed), as the decision's plan left it.
    static func writeModeration(_ message: StoredMessage, _ database: some SQLConnection) throws {
        try database.execute("UPDATE messages SET state = ?, hidden = ?, removed_by = ?, updated_at = ? WHERE id = ?",
                             [message.state.databaseValue, .integer(message.hidden ? 1 : 0), message.removedBy.databaseValue,
                              .text(message.updatedAt), .text(message.id)])
    }

    public static func insert(_ flags: [NewFlag], _ database: some SQLConnection) throws {
        for flag in flags {
            try database.execute(
                """
                INSERT INTO flags (id, message_id, channel_id, reporter_id, reason, details, custom, rule_id, created_at, author_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT user_id FROM messages WHERE id = ?))
                """,
                [.text(flag.id), .text(flag.messageID), .text(flag.channelID), .text(flag.reporterID), .text(flag.reason),
                 flag.details.databaseValue, flag.custom.databaseValue,
                 flag.ruleID.databaseValue, .text(flag.createdAt), .text(flag.messageID)])
        }
    }

    /// A new message and its flags, in the writer's transaction: a retry is answered with what it
    /// first made, a reply's parent must be one the sender may see, and an id taken by another
    /// message is a conflict. `insert` adds the row (`values`' columns) and gives its sequence, or
    /// nil when the id is taken: each store inserts its own way.
    public static func send<C: SQLConnection>(_ message: StoredMessage, flags: [NewFlag], events: [NewEvent], sender: Viewer,
                                              _ database: C, insert: (C) throws -> Int64?) throws -> SendOutcome {
        // A retry is answered with what it first made, whatever has happened to the parent since.
        // Most sends are new and no reply: those skip this lookup, and find a taken id on insert.
        if message.parentID != nil, let existing = try read(database, id: message.id) {
            return retried(message, found: existing)
        }
        if let parentID = message.parentID {
            guard let parent = try read(database, id: parentID), parent.channelID == message.channelID,
                  MessageVisibility.isVisible(state: parent.state, hidden: parent.hidden, authorID: parent.userID, to: sender) else {
                return .parentNotFound
            }
        }
        guard let sequence = try insert(database) else {
            // The id is taken: by this same message sent before (a retry), or by another one.
            return try read(database, id: message.id).map { retried(message, found: $0) } ?? .conflict
        }
        var stored = message
        stored.sequence = sequence
        try MessageSQL.insert(flags, database)
        try EventLog.append(events, database)
        return .created(stored)
    }

    /// The columns a send inserts, in the order of `values`.
    public static let insertColumns = "id, channel_id, user_id, text, original_text, state, parent_id, custom, moderation, bounce_action, flagged, edited, created_at, updated_at"

    public static func values(_ message: StoredMessage) -> [DatabaseValue] {
        [.text(message.id), .text(message.channelID), .text(message.userID), .text(message.text),
         message.originalText.databaseValue, message.state.databaseValue, message.parentID.databaseValue,
         message.custom.databaseValue, message.moderation.databaseValue, message.bounceAction.databaseValue, .integer(message.flagged ? 1 : 0), .integer(message.edited ? 1 : 0),
         .text(message.createdAt), .text(message.updatedAt)]
    }

    /// A send whose id is taken: a retry of `message` when the stored one matches it.
    public static func retried(_ message: StoredMessage, found existing: StoredMessage) -> SendOutcome {
        existing.userID == message.userID && existing.text == message.text && existing.channelID == message.channelID
            ? .replayed(existing) : .conflict
    }
}

extension SQLStore {
    public func message(id: String) async throws -> StoredMessage? {
        try await read { database in try MessageSQL.read(database, id: id) }
    }

    public func apply(_ change: MessageChange, to expected: StoredMessage, events: [NewEvent],
                      audit: AuditEntry?) async throws -> Planned<StoredMessage?> {
        try await write { database in
            let id = expected.id
            guard let current = try MessageSQL.read(database, id: id), current == expected else { return .stale }
            if let audit { try Self.insert(audit, database) }
            switch change {
            case .unchanged:
                return .applied(current)
            case .erase:
                try database.execute("DELETE FROM messages WHERE id = ?", [.text(id)])
                try EventLog.append(events, database)
                return .applied(nil)
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
                        edited = ?, updated_at = ?, hidden = ? WHERE id = ?
                    """,
                    [.text(updated.text), updated.originalText.databaseValue, updated.state.databaseValue,
                     updated.moderation.databaseValue, updated.bounceAction.databaseValue,
                     .integer(updated.flagged ? 1 : 0), .integer(updated.edited ? 1 : 0), .text(updated.updatedAt),
                     .integer(updated.hidden ? 1 : 0), .text(id)])
                try MessageSQL.insert(flags, database)
                var result = updated
                result.sequence = current.sequence
                try EventLog.append(events, database)
                return .applied(result)
            }
        }
    }

    public func revisions(of id: String, after: Int, limit: Int) async throws -> [MessageRevision] {
        try await read { database in
            try database.fetchAll(
                "SELECT revision, text, state, moderation, created_at FROM message_revisions WHERE message_id = ? AND revision > ? ORDER BY revision LIMIT ?",
                [.text(id), .integer(Int64(after)), .integer(Int64(limit))]).map { row in
                MessageRevision(revision: try row.decode("revision"), text: try row.decode("text"), state: try row.decode("state"),
                                moderation: try row.decodeIfPresent("moderation"), createdAt: try row.decode("created_at"))
            }
        }
    }
}
