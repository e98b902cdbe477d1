import BouncerDomain

/// A stored message as a dry run reads it: the text as sent, and the state it has.
public struct HistoryMessage: Sendable, Equatable {
    public var sequence: Int64
    public var id: String
    public var channelID: String
    /// The text as its author sent it (before a mask).
    public var text: String
    public var state: MessageState
}

/// Which stored messages a dry run reads.
public struct HistoryFilter: Sendable, Equatable {
    public var channelID: String?
    /// RFC 3339 times as `Timestamp` writes them: from `since` (inclusive) to `until` (exclusive).
    public var since: String?
    public var until: String?

    public init(channelID: String? = nil, since: String? = nil, until: String? = nil) {
        self.channelID = channelID
        self.since = since
        self.until = until
    }
}

/// Stored messages read page by page, newest first, for trying rules against history; and what
/// reviews decided about them. Read on a connection of the reader's own, on the caller's thread:
/// a long scan runs where (and at the priority) its caller chooses, not on the threads that serve
/// requests' reads. Used by one thread at a time.
public protocol HistoryReader: AnyObject {
    /// Up to `limit` messages older than `before` (a sequence; nil: the newest), newest first,
    /// deleted ones left out.
    func page(_ filter: HistoryFilter, before: Int64?, limit: Int) throws -> [HistoryMessage]
    /// The resolution of each message's latest review (`dismissed`, `message_removed`,
    /// `author_banned`), for those of `messageIDs` that have one.
    func reviewResolutions(messageIDs: [String]) throws -> [String: String]
}

public protocol MessageHistoryRepository: Sendable {
    /// A reader with a connection of its own (closed when the reader is released).
    func historyReader() throws -> any HistoryReader
}

extension SQLStore {
    public func historyReader() throws -> any HistoryReader {
        SQLHistoryReader(connection: try openConnection())
    }
}

final class SQLHistoryReader<Connection: SQLConnection>: HistoryReader {
    private let connection: Connection

    init(connection: Connection) {
        self.connection = connection
    }

    func page(_ filter: HistoryFilter, before: Int64?, limit: Int) throws -> [HistoryMessage] {
        var conditions = ["state != 'deleted'"]
        var arguments: [DatabaseValue] = []
        if let before { conditions.append("sequence < ?"); arguments.append(.integer(before)) }
        if let channel = filter.channelID { conditions.append("channel_id = ?"); arguments.append(.text(channel)) }
        if let since = filter.since { conditions.append("created_at >= ?"); arguments.append(.text(since)) }
        if let until = filter.until { conditions.append("created_at < ?"); arguments.append(.text(until)) }
        arguments.append(.integer(Int64(limit)))
        return try connection.fetchAll("""
            SELECT sequence, id, channel_id, coalesce(original_text, text) AS text, state FROM messages
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY sequence DESC LIMIT ?
            """, arguments).map { row in
            HistoryMessage(sequence: try row.decode("sequence"), id: try row.decode("id"), channelID: try row.decode("channel_id"),
                           text: try row.decode("text"), state: try row.decode("state"))
        }
    }

    func reviewResolutions(messageIDs: [String]) throws -> [String: String] {
        var resolutions: [String: String] = [:]
        // A few hundred at a time: both stores bound a statement's parameters.
        for start in stride(from: 0, to: messageIDs.count, by: 500) {
            let chunk = messageIDs[start..<min(messageIDs.count, start + 500)]
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            for row in try connection.fetchAll("""
                SELECT message_id, resolution FROM flags
                WHERE message_id IN (\(marks)) AND state = 'resolved' AND resolution IS NOT NULL
                ORDER BY resolved_at, id
                """, chunk.map { .text($0) }) {
                resolutions[try row.decode("message_id", as: String.self)] = try row.decode("resolution", as: String.self)
            }
        }
        return resolutions
    }
}
