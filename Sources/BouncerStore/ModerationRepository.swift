import BouncerDomain
public struct AuditQuery: Sendable {
    public var actorID: String?
    public var action: String?
    public var since: String?
    public var after: String?
    public var limit: Int
    /// Newest first (a log read from its end), with `after` the last entry of the page before.
    public var newestFirst: Bool

    public init(actorID: String? = nil, action: String? = nil, since: String? = nil, after: String? = nil, limit: Int = 50,
                newestFirst: Bool = false) {
        self.actorID = actorID
        self.action = action
        self.since = since
        self.after = after
        self.limit = limit
        self.newestFirst = newestFirst
    }
}

/// Every ban in force at one moment, with the bans' version.
public struct BanSnapshot: Sendable {
    public var sequence: UInt64
    public var bans: [StoredBan]

    public init(sequence: UInt64, bans: [StoredBan]) {
        self.sequence = sequence
        self.bans = bans
    }
}

/// Bans and the audit log.
public protocol ModerationRepository: Sendable {
    /// The ban in force on `userID` at `now` (an RFC 3339 time), if any.
    func activeBan(userID: String, now: String) async throws -> StoredBan?
    /// Bans (or re-bans) a user, with its audit entry in the same transaction; returns the bans'
    /// version (`ChangeTopic.bans`).
    @discardableResult
    func ban(_ ban: StoredBan, audit: AuditEntry, events: [NewEvent]) async throws -> UInt64
    /// Lifts a ban and returns the bans' version; nil when there was none. The audit entry is
    /// written with it.
    func unban(userID: String, audit: AuditEntry, events: [NewEvent]) async throws -> UInt64?
    /// Bans in force at `now`, by user id after `after`.
    func activeBans(now: String, after: String?, limit: Int) async throws -> [StoredBan]
    /// Every ban in force at `now`, with the bans' version, read at one moment.
    func allActiveBans(now: String) async throws -> BanSnapshot
    func record(_ entry: AuditEntry) async throws
    func auditEntries(_ query: AuditQuery) async throws -> [AuditEntry]
}

extension ModerationRepository {
    @discardableResult
    public func ban(_ ban: StoredBan, audit: AuditEntry) async throws -> UInt64 { try await self.ban(ban, audit: audit, events: []) }
    public func unban(userID: String, audit: AuditEntry) async throws -> UInt64? { try await unban(userID: userID, audit: audit, events: []) }
}

extension SQLStore {
    public func activeBan(userID: String, now: String) async throws -> StoredBan? {
        try await read { database in try Self.banInForce(userID, now: now, database) }
    }

    @discardableResult
    public func ban(_ ban: StoredBan, audit: AuditEntry, events: [NewEvent]) async throws -> UInt64 {
        try await write { database in
            try Self.upsert(ban, database)
            try Self.insert(audit, database)
            try EventLog.append(events, database)
            return try Self.advance(.bans, database)
        }
    }

    public func unban(userID: String, audit: AuditEntry, events: [NewEvent]) async throws -> UInt64? {
        try await write { database in
            try database.execute("DELETE FROM bans WHERE user_id = ?", [.text(userID)])
            guard database.changes > 0 else { return nil }
            try Self.insert(audit, database)
            try EventLog.append(events, database)
            return try Self.advance(.bans, database)
        }
    }

    public func allActiveBans(now: String) async throws -> BanSnapshot {
        try await read { database in
            BanSnapshot(sequence: try Self.version(of: .bans, database), bans: try database.fetchAll(
                "SELECT user_id, reason, shadow, expires_at, created_by, created_at FROM bans WHERE expires_at IS NULL OR expires_at > ?",
                [.text(now)]).map(Self.storedBan))
        }
    }

    public func activeBans(now: String, after: String?, limit: Int) async throws -> [StoredBan] {
        try await read { database in
            try database.fetchAll(
                """
                SELECT user_id, reason, shadow, expires_at, created_by, created_at FROM bans
                WHERE (expires_at IS NULL OR expires_at > ?) AND user_id > ? ORDER BY user_id LIMIT ?
                """, [.text(now), .text(after ?? ""), .integer(Int64(limit))]).map(Self.storedBan)
        }
    }

    public func record(_ entry: AuditEntry) async throws {
        try await write { database in try Self.insert(entry, database) }
    }

    public func auditEntries(_ query: AuditQuery) async throws -> [AuditEntry] {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        if let actor = query.actorID { conditions.append("actor_id = ?"); arguments.append(.text(actor)) }
        if let action = query.action { conditions.append("action = ?"); arguments.append(.text(action)) }
        if let since = query.since { conditions.append("created_at >= ?"); arguments.append(.text(since)) }
        if let after = query.after { conditions.append(query.newestFirst ? "id < ?" : "id > ?"); arguments.append(.text(after)) }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments.append(.integer(Int64(query.limit)))
        let sql = "SELECT id, actor_id, action, target_type, target_id, note, details, created_at FROM audit_log \(filter) ORDER BY id"
            + (query.newestFirst ? " DESC" : "") + " LIMIT ?"
        let bound = arguments
        return try await read { database in
            try database.fetchAll(sql, bound).map { row in
                AuditEntry(id: try row.decode("id"), actorID: try row.decode("actor_id"), action: try row.decode("action"),
                           targetType: try row.decode("target_type"), targetID: try row.decode("target_id"), note: try row.decodeIfPresent("note"),
                           details: try row.decodeIfPresent("details"), createdAt: try row.decode("created_at"))
            }
        }
    }

    /// Bans a user, or replaces the ban on them (and its cause), in the caller's transaction.
    static func upsert(_ ban: StoredBan, cause: BanCause = .none, _ database: some SQLConnection) throws {
        try database.execute(
            """
            INSERT INTO bans (user_id, reason, shadow, expires_at, created_by, created_at, strike_id, strike_step) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (user_id) DO UPDATE SET reason = excluded.reason, shadow = excluded.shadow, expires_at = excluded.expires_at,
                created_by = excluded.created_by, created_at = excluded.created_at, strike_id = excluded.strike_id,
                strike_step = excluded.strike_step
            """,
            [.text(ban.userID), ban.reason.map(DatabaseValue.text) ?? .null, .integer(ban.shadow ? 1 : 0),
             ban.expiresAt.map(DatabaseValue.text) ?? .null, .text(ban.createdBy), .text(ban.createdAt),
             cause.strikeID.databaseValue, cause.strikeStep.map { .integer(Int64($0)) } ?? .null])
    }

    static func insert(_ entry: AuditEntry, _ database: some SQLConnection) throws {
        try database.execute(
            "INSERT INTO audit_log (id, actor_id, action, target_type, target_id, note, details, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [.text(entry.id), .text(entry.actorID), .text(entry.action), .text(entry.targetType), .text(entry.targetID),
             entry.note.map(DatabaseValue.text) ?? .null, entry.details.map(DatabaseValue.text) ?? .null, .text(entry.createdAt)])
    }

    static func storedBan(_ row: Row) throws(RowDecodingError) -> StoredBan {
        StoredBan(userID: try row.decode("user_id"), reason: try row.decodeIfPresent("reason"), shadow: try row.decode("shadow"),
                  expiresAt: try row.decodeIfPresent("expires_at"), createdBy: try row.decode("created_by"), createdAt: try row.decode("created_at"))
    }
}
