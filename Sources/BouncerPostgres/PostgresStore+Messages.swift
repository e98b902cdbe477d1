import BouncerDomain
import BouncerStore

/// What PostgreSQL does its own way of the messages: the insert gives back its sequence with
/// `RETURNING`, and a channel's page reads the `messages_by_channel` index.
extension PostgresStore: MessageRepository {
    public func send(_ message: StoredMessage, flags: [NewFlag], events: [NewEvent], sender: Viewer,
                     completion: @escaping @Sendable (Result<SendOutcome, any Error>) -> Void) {
        let values = MessageSQL.values(message)
        // A new message that is no reply (nothing to look up first) is inserted with the group's
        // others, their flags and events in one statement; `work` is for the rest, and for a
        // taken id.
        let combinable = message.parentID != nil ? nil : (
            row: CombinedInsert.Row(key: message.id, values: values, children: flags.map { Self.flagRow($0, author: message.userID) },
                                    events: events),
            made: { @Sendable (sequence: Int64) -> SendOutcome in
                var stored = message
                stored.sequence = sequence
                return .created(stored)
            })
        // A send throws only through the database, whose failure aborts the transaction and has
        // the group run again with savepoints: the usual send skips a savepoint's round trips.
        writer.write({ connection in
            try MessageSQL.send(message, flags: flags, events: events, sender: sender, connection) { connection in
                try connection.fetchOne(Self.insertMessage, values)?.decode("sequence", as: Int64.self)
            }
        }, needsSavepoint: false, combinable: combinable, completion: completion)
    }

    /// New messages and their flags, inserted a group at a time.
    static let messagesInsert = CombinedInsert(
        table: "messages",
        columns: MessageSQL.insertColumns.split(separator: ",").map { name in
            let name = String(name.drop { $0 == " " })
            return CombinedInsert.Column(name, ["flagged", "edited"].contains(name) ? "integer" : "text")
        },
        returning: "sequence",
        childTable: "flags",
        childColumns: ["id", "message_id", "channel_id", "reporter_id", "reason", "details", "custom", "rule_id", "created_at", "author_id"]
            .map { CombinedInsert.Column($0) },
        childKey: "message_id", appendsEvents: true)

    private static func flagRow(_ flag: NewFlag, author: String) -> [DatabaseValue] {
        [.text(flag.id), .text(flag.messageID), .text(flag.channelID), .text(flag.reporterID), .text(flag.reason),
         flag.details.databaseValue, flag.custom.databaseValue, flag.ruleID.databaseValue, .text(flag.createdAt), .text(author)]
    }

    public func channelMessages(_ channelID: String, before sequence: Int64?, limit: Int, viewer: Viewer) async throws -> [StoredMessage] {
        let page: [DatabaseValue] = [.text(channelID), .integer(sequence ?? .max), .integer(Int64(limit))]
        let (query, arguments) = viewer.seesEverything ? (Self.channelPage, page) : (Self.channelPageForViewer, page + [.text(viewer.userID)])
        return try await read { connection in try connection.fetchAll(query, arguments).map(MessageSQL.message) }
    }

    public func channelMessages(_ channelID: String, after sequence: Int64, limit: Int, viewer: Viewer) async throws -> [StoredMessage] {
        let page: [DatabaseValue] = [.text(channelID), .integer(sequence), .integer(Int64(limit))]
        let (query, arguments) = viewer.seesEverything ? (Self.channelPageAfter, page) : (Self.channelPageAfterForViewer, page + [.text(viewer.userID)])
        return try await read { connection in try connection.fetchAll(query, arguments).map(MessageSQL.message) }
    }

    private static let insertMessage =
        "INSERT INTO messages (\(MessageSQL.insertColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING sequence"

    /// `?1` the channel, `?2` the sequence to start below, `?3` the page size and, for a viewer who
    /// does not see everything, `?4` the viewer.
    private static let channelPage = pageSQL(visibility: "")
    private static let channelPageForViewer = pageSQL(visibility: " AND " + MessageVisibility.sqlCondition(viewer: "?4"))

    private static func pageSQL(visibility: String) -> String {
        "SELECT \(MessageSQL.columns) FROM messages WHERE channel_id = ?1 AND sequence < ?2\(visibility) ORDER BY sequence DESC LIMIT ?3"
    }

    /// The same for the page after `?2`, oldest first.
    private static let channelPageAfter = pageAfterSQL(visibility: "")
    private static let channelPageAfterForViewer = pageAfterSQL(visibility: " AND " + MessageVisibility.sqlCondition(viewer: "?4"))

    private static func pageAfterSQL(visibility: String) -> String {
        "SELECT \(MessageSQL.columns) FROM messages WHERE channel_id = ?1 AND sequence > ?2\(visibility) ORDER BY sequence ASC LIMIT ?3"
    }
}
