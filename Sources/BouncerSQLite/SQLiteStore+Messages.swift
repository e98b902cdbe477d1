import BouncerDomain
import BouncerStore

extension SQLiteStore: MessageRepository {
    private static let channelPage = ChannelIndex.pageSQL(columns: MessageSQL.columnList, visibleToViewer: false)
    private static let channelPageForViewer = ChannelIndex.pageSQL(columns: MessageSQL.columnList, visibleToViewer: true)
    private static let channelPageAfter = ChannelIndex.pageAfterSQL(columns: MessageSQL.columnList, visibleToViewer: false)
    private static let channelPageAfterForViewer = ChannelIndex.pageAfterSQL(columns: MessageSQL.columnList, visibleToViewer: true)

    public func send(_ message: StoredMessage, flags: [NewFlag], events: [NewEvent], sender: Viewer,
                     completion: @escaping @Sendable (Result<SendOutcome, any Error>) -> Void) {
        writer.enqueue(SendWrite(message, flags: flags, events: events, sender: sender, completion: completion))
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

    fileprivate static let insertMessage = FrequentSQL(
        "INSERT INTO messages (\(MessageSQL.insertColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING")
}

/// A send, as the writer's queue holds it: one object for the message, its caller and its result,
/// where closures would be three allocations a send.
private final class SendWrite: GroupWrite, @unchecked Sendable {
    private let message: StoredMessage
    private let values: [DatabaseValue]
    private let flags: [NewFlag]
    private let events: [NewEvent]
    private let sender: Viewer
    private let completion: @Sendable (Result<SendOutcome, any Error>) -> Void
    /// Set by `run`, read by `finish`: both on the writer's queue, one after the other (the
    /// unchecked `Sendable` rests on that).
    private var result: Result<SendOutcome, any Error>?

    init(_ message: StoredMessage, flags: [NewFlag], events: [NewEvent], sender: Viewer,
         completion: @escaping @Sendable (Result<SendOutcome, any Error>) -> Void) {
        self.message = message
        // Made here, on the caller's thread: the writer's thread is the one every send waits for.
        values = MessageSQL.values(message)
        self.flags = flags
        self.events = events
        self.sender = sender
        self.completion = completion
    }

    func run(_ database: SQLiteDatabase) -> SQLiteError? {
        assert(SQLiteWriter.isOnWriterQueue, "a send is written on the writer's queue")
        // Without system flags or events, the insert is the only statement that changes anything.
        let outcome = database.runWrite(oneStatement: flags.isEmpty && events.isEmpty) { database in
            try MessageSQL.send(message, flags: flags, events: events, sender: sender, database) { database in
                try database.execute(SQLiteStore.insertMessage, values)
                return database.changes == 0 ? nil : database.lastInsertRowID
            }
        }
        result = outcome
        return outcome.databaseError
    }

    func finish(_ commitError: (any Error)?) {
        // On the writer's queue after `run`; a send refused by a closed writer never ran.
        assert(SQLiteWriter.isOnWriterQueue || result == nil, "a send is finished on the writer's queue, after `run`")
        completion(commitError.map { .failure($0) } ?? result ?? .failure(StoreError.closed))
    }
}
