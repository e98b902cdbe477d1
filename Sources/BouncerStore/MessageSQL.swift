import BouncerDomain

/// The messages table as both stores read and write it: its columns, a message by id, a row as a
/// `StoredMessage`, and the flags filed with a message.
enum MessageSQL {
    static let columnList = ["sequence", "id", "channel_id", "user_id", "text", "original_text", "state", "parent_id", "custom",
                             "moderation", "bounce_action", "flagged", "edited", "created_at", "updated_at", "hidden"]
    static let columns = columnList.joined(separator: ", ")

    static func read(_ database: some SQLConnection, id: String) throws -> StoredMessage? {
        try database.fetchOne("SELECT \(columns) FROM messages WHERE id = ?", [.text(id)]).map(message)
    }

    static func message(_ row: Row) -> StoredMessage {
        var message = StoredMessage(
            id: row.get("id") ?? "", channelID: row.get("channel_id") ?? "", userID: row.get("user_id") ?? "",
            text: row.get("text") ?? "", originalText: row.get("original_text"), state: row.get("state") ?? .delivered,
            parentID: row.get("parent_id"), custom: row.get("custom"), moderation: row.get("moderation"),
            bounceAction: row.get("bounce_action"), flagged: row.get("flagged") ?? false, edited: row.get("edited") ?? false,
            createdAt: row.get("created_at") ?? "", updatedAt: row.get("updated_at") ?? "")
        message.sequence = row.get("sequence") ?? 0
        message.hidden = row.get("hidden") ?? false
        return message
    }

    static func insert(_ flags: [NewFlag], _ database: some SQLConnection) throws {
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
}
