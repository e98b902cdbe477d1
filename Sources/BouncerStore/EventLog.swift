import BouncerDomain

extension StoredEvent {
    /// The event as the API shows it: `data` is stored as the JSON it is.
    public var json: String { #"{"id":\#(id),"type":"\#(type)","created_at":"\#(createdAt)","data":\#(data)}"# }
}

public protocol EventRepository: Sendable {
    /// Events after `after`, oldest first, of `types` only when given.
    func events(after: Int64, types: [String]?, limit: Int) async throws -> [StoredEvent]
    /// The newest committed event's id (0 with none): where a reader of new events starts.
    func lastEventID() async throws -> Int64
    /// Deletes up to `limit` of the oldest events created before `before`; returns how many.
    func pruneEvents(before: String, limit: Int) async throws -> Int
}

/// Appending to the event log, inside the transaction of the change the events tell of.
public enum EventLog {
    /// Appends `events`. Their ids come from `event_sequence`, whose row stays locked until the
    /// transaction ends: transactions that append events (from any instance) commit in the order
    /// of their ids.
    public static func append<Connection: SQLConnection>(_ events: [NewEvent], _ connection: Connection) throws {
        guard !events.isEmpty else { return }
        let count = Int64(events.count)
        let last = try connection.fetchValue("UPDATE event_sequence SET last = last + ? WHERE id = 1 RETURNING last", [.integer(count)],
                                             as: Int64.self) ?? count
        for start in stride(from: 0, to: events.count, by: chunk) {
            let part = events[start..<min(events.count, start + chunk)]
            var values: [DatabaseValue] = []
            for (offset, event) in part.enumerated() {
                values += [.integer(last - count + 1 + Int64(start + offset)), .text(event.type), .text(event.createdAt), .text(event.data)]
            }
            try connection.execute("INSERT INTO events (id, type, created_at, data) VALUES "
                                   + Array(repeating: "(?, ?, ?, ?)", count: part.count).joined(separator: ", "), values)
        }
    }

    /// Rows a statement inserts at most (four parameters each, well under either store's limit).
    private static var chunk: Int { 250 }
}

extension SQLStore {
    public func events(after: Int64, types: [String]?, limit: Int) async throws -> [StoredEvent] {
        var sql = "SELECT id, type, created_at, data FROM events WHERE id > ?"
        var arguments: [DatabaseValue] = [.integer(after)]
        if let types, !types.isEmpty {
            sql += " AND type IN (" + Array(repeating: "?", count: types.count).joined(separator: ", ") + ")"
            arguments += types.map(DatabaseValue.text)
        }
        sql += " ORDER BY id LIMIT ?"
        arguments.append(.integer(Int64(limit)))
        let query = sql, bound = arguments
        return try await read { database in
            try database.fetchAll(query, bound).map(Self.storedEvent)
        }
    }

    static func storedEvent(_ row: Row) throws(RowDecodingError) -> StoredEvent {
        StoredEvent(id: try row.decode("id"), type: try row.decode("type"), createdAt: try row.decode("created_at"), data: try row.decode("data"))
    }

    public func lastEventID() async throws -> Int64 {
        try await read { database in try database.fetchValue("SELECT coalesce(max(id), 0) FROM events", as: Int64.self) ?? 0 }
    }

    public func pruneEvents(before: String, limit: Int) async throws -> Int {
        try await write { database in
            try database.execute("DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < ? ORDER BY id LIMIT ?)",
                                 [.text(before), .integer(Int64(limit))])
            return database.changes
        }
    }
}
