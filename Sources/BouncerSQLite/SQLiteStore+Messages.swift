import BouncerDomain
import BouncerStore

extension SQLiteStore: MessageRepository {
    private static let channelPage = ChannelIndex.pageSQL(columns: MessageSQL.columnList, visibleToViewer: false)
    private static let channelPageForViewer = ChannelIndex.pageSQL(columns: MessageSQL.columnList, visibleToViewer: true)
    private static let channelPageAfter = ChannelIndex.pageAfterSQL(columns: MessageSQL.columnList, visibleToViewer: false)
    private static let channelPageAfterForViewer = ChannelIndex.pageAfterSQL(columns: MessageSQL.columnList, visibleToViewer: true)

    public func send(_ message: StoredMessage, flags: [NewFlag], events: [NewEvent], sender: Viewer,
                     completion: @escaping @Sendable (Result<SendOutcome, any Error>) -> Void) {
        // Made here, on the caller's thread: the writer's thread is the one every send waits for.
        let values = MessageSQL.values(message)
        // Without system flags or events, the insert below is the only statement that changes anything.
        writer.write(oneStatement: flags.isEmpty && events.isEmpty, { database in
            try MessageSQL.send(message, flags: flags, events: events, sender: sender, database) { database in
                try database.execute(Self.insertMessage, values)
                return database.changes == 0 ? nil : database.lastInsertRowID
            }
        }, completion: completion)
    }

    public func channelMessages(_ channelID: String, before sequence: Int64?, limit: Int, viewer: Viewer) async throws -> [StoredMessage] {
        let page: [DatabaseValue] = [.text(channelID), .integer(sequence ?? .max), .integer(Int64(limit))]
        let (query, arguments) = viewer.seesEverything ? (Self.channelPage, page) : (Self.channelPageForViewer, page + [.text(viewer.userID)])
        return try await readers.read { database in try database.fetchAll(query, arguments).map(MessageSQL.message) }
    }

    public func channelMessages(_ channelID: String, after sequence: Int64, limit: Int, viewer: Viewer) async throws -> [StoredMessage] {
        let page: [DatabaseValue] = [.text(channelID), .integer(sequence), .integer(Int64(limit))]
        let (query, arguments) = viewer.seesEverything ? (Self.channelPageAfter, page) : (Self.channelPageAfterForViewer, page + [.text(viewer.userID)])
        return try await readers.read { database in try database.fetchAll(query, arguments).map(MessageSQL.message) }
    }

    private static let insertMessage = FrequentSQL(
        "INSERT INTO messages (\(MessageSQL.insertColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING")
}

