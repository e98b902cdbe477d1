import BouncerDomain

/// What a strike about to be made needs from the service: when it expires, and the ban a count of
/// active strikes calls for (the strike policy in force), with what to record if it bans.
public struct StrikeTerms: Sendable {
    /// The strike, `expiresAt` already set by the policy in force.
    public var strike: StoredStrike
    /// The ban for a user with this many active strikes (the new one included), with the count of
    /// strikes of the policy's step that gives it; nil when no step is reached.
    public var banFor: @Sendable (_ activeStrikes: Int) -> (ban: StoredBan, step: Int)?
    /// The audit entry and events of a ban the policy gives.
    public var banRecord: @Sendable (StoredBan) throws -> (audit: AuditEntry, events: [NewEvent])

    public init(strike: StoredStrike, banFor: @escaping @Sendable (Int) -> (ban: StoredBan, step: Int)?,
                banRecord: @escaping @Sendable (StoredBan) throws -> (audit: AuditEntry, events: [NewEvent])) {
        self.strike = strike
        self.banFor = banFor
        self.banRecord = banRecord
    }
}

/// What making a strike did: whether it was new (a message has one strike at most), the strike in
/// force for the decision (the new one, or the one its message had already), and the ban the
/// policy gave, with the bans' version it committed at.
public struct StrikeOutcome: Sendable, Equatable {
    public var added: Bool
    public var ban: StoredBan?
    public var bansVersion: UInt64?
    public var strikeID: String?

    public init(added: Bool, ban: StoredBan?, bansVersion: UInt64?, strikeID: String? = nil) {
        self.added = added
        self.ban = ban
        self.bansVersion = bansVersion
        self.strikeID = strikeID
    }

    public static let none = StrikeOutcome(added: false, ban: nil, bansVersion: nil)
}

public protocol StrikeRepository: Sendable {
    /// `userID`'s strikes in force at `now` (neither expired nor taken back), newest first.
    func activeStrikes(userID: String, now: String) async throws -> [StoredStrike]
}

extension SQLStore {
    public func activeStrikes(userID: String, now: String) async throws -> [StoredStrike] {
        try await read { database in
            try database.fetchAll(
                """
                SELECT id, user_id, reason, message_id, created_at, expires_at FROM strikes
                WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY id DESC LIMIT ?
                """, [.text(userID), .text(now), .integer(Int64(Strikes.maxListed))]).map(Strikes.strike)
        }
    }
}

/// Strikes as both stores make and take back, inside the transaction of the decision behind them.
public enum Strikes {
    /// The most strikes a user's list shows (a policy's highest step is at most 1,000).
    public static let maxListed = 1000

    static func strike(_ row: Row) throws(RowDecodingError) -> StoredStrike {
        StoredStrike(id: try row.decode("id"), userID: try row.decode("user_id"), reason: try row.decode("reason"),
                     messageID: try row.decodeIfPresent("message_id"), createdAt: try row.decode("created_at"), expiresAt: try row.decode("expires_at"))
    }

    /// Takes back the strike for `messageID`, if it has one in force.
    static func revoke(messageID: String, now: String, _ database: some SQLConnection) throws {
        try database.execute("UPDATE strikes SET revoked_at = ? WHERE message_id = ? AND revoked_at IS NULL", [.text(now), .text(messageID)])
    }

    /// Takes back the strike that the decision behind `userID`'s ban made (a review's
    /// `ban_author`, or the strike that reached the policy's step), and no other: a moderator's
    /// ban from the API made none.
    static func revokeBehindBan(userID: String, now: String, _ database: some SQLConnection) throws {
        guard let id = try database.fetchValue("SELECT strike_id FROM bans WHERE user_id = ?", [.text(userID)], as: String.self) else { return }
        try database.execute("UPDATE strikes SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [.text(now), .text(id)])
    }

    /// `userID`'s strikes in force at `now`.
    static func activeCount(userID: String, now: String, _ database: some SQLConnection) throws -> Int {
        try database.fetchValue("SELECT count(*) FROM strikes WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ?",
                                [.text(userID), .text(now)], as: Int.self) ?? 0
    }
}

extension SQLStore {
    /// Makes the strike (none when its message has one already), then bans its user when the
    /// active strikes reach a step of the policy, unless a ban in force already lasts as long.
    static func addStrike(_ terms: StrikeTerms, now: String, _ database: Connection) throws -> StrikeOutcome {
        let strike = terms.strike
        try database.execute(
            """
            INSERT INTO strikes (id, user_id, reason, message_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (message_id) WHERE message_id IS NOT NULL AND revoked_at IS NULL DO NOTHING
            """, [.text(strike.id), .text(strike.userID), .text(strike.reason), strike.messageID.databaseValue, .text(strike.createdAt),
                  .text(strike.expiresAt)])
        guard database.changes > 0 else {
            let existing = try strike.messageID.flatMap { messageID in
                try database.fetchValue("SELECT id FROM strikes WHERE message_id = ? AND revoked_at IS NULL", [.text(messageID)], as: String.self)
            }
            return StrikeOutcome(added: false, ban: nil, bansVersion: nil, strikeID: existing)
        }
        let active = try Strikes.activeCount(userID: strike.userID, now: now, database)
        let added = StrikeOutcome(added: true, ban: nil, bansVersion: nil, strikeID: strike.id)
        guard let (ban, step) = terms.banFor(active) else { return added }
        if let current = try database.fetchOne(
            "SELECT expires_at FROM bans WHERE user_id = ? AND (expires_at IS NULL OR expires_at > ?)", [.text(strike.userID), .text(now)]) {
            // A ban for good, or one that ends no sooner than the policy's, stays as it is.
            guard let currentEnd: String = try current.decodeIfPresent("expires_at") else { return added }
            if let end = ban.expiresAt, currentEnd >= end { return added }
        }
        let record = try terms.banRecord(ban)
        try Self.upsert(ban, cause: BanCause(strikeID: strike.id, strikeStep: step), database)
        try Self.insert(record.audit, database)
        try EventLog.append(record.events, database)
        return StrikeOutcome(added: true, ban: ban, bansVersion: try Self.advance(.bans, database), strikeID: strike.id)
    }

    /// Lifts `userID`'s ban when the strike policy gave it and their active strikes at `now` no
    /// longer reach its step (strikes taken back by overturned appeals), with an audit entry by
    /// `system` and the events `events` makes; the bans' version it committed at, or nil.
    static func liftStrikeBanBelowStep(userID: String, now: String, events: [NewEvent], _ database: Connection) throws -> UInt64? {
        guard let step = try database.fetchValue(
            "SELECT strike_step FROM bans WHERE user_id = ? AND strike_step IS NOT NULL AND (expires_at IS NULL OR expires_at > ?)",
            [.text(userID), .text(now)], as: Int.self),
              try Strikes.activeCount(userID: userID, now: now, database) < step else { return nil }
        try database.execute("DELETE FROM bans WHERE user_id = ?", [.text(userID)])
        try Self.insert(AuditEntry(id: TimeOrderedID.make(), actorID: SystemFlag.reporterID, action: "user.unban", targetType: "user",
                                   targetID: userID, note: "strikes", details: #"{"reason":"strikes"}"#, createdAt: now), database)
        try EventLog.append(events, database)
        return try Self.advance(.bans, database)
    }
}

/// What caused a ban (migration 0019): the strike its decision made, and for the strike policy's
/// bans the step's count of strikes. A moderator's ban from the API has none.
struct BanCause {
    var strikeID: String?
    var strikeStep: Int?

    static let none = BanCause(strikeID: nil, strikeStep: nil)
}
