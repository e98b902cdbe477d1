import BouncerDomain

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

    /// Takes back strike `id`, if it is not already.
    static func revoke(id: String, now: String, _ database: some SQLConnection) throws {
        try database.execute("UPDATE strikes SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [.text(now), .text(id)])
    }

    /// `userID`'s strikes in force at `now`.
    static func activeCount(userID: String, now: String, _ database: some SQLConnection) throws -> Int {
        try database.fetchValue("SELECT count(*) FROM strikes WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ?",
                                [.text(userID), .text(now)], as: Int.self) ?? 0
    }
}
