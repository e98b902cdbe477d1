import BouncerDomain

/// A user's standing as a decision about them reads it, at the decision's `now`: their strikes in
/// force, the strike a message of theirs has, and their ban in force with its cause. A plan made
/// from it is applied only while the store still reads the same.
public struct Standing: Sendable, Equatable {
    /// Strikes neither expired nor taken back.
    public var activeStrikes: Int
    /// The message's strike not taken back (it may have expired), when the decision is about a message.
    public var messageStrike: StoredStrike?
    public var ban: StoredBan?
    public var banCause: BanCause

    public init(activeStrikes: Int, messageStrike: StoredStrike?, ban: StoredBan?, banCause: BanCause) {
        self.activeStrikes = activeStrikes
        self.messageStrike = messageStrike
        self.ban = ban
        self.banCause = banCause
    }
}

extension SQLStore {
    /// `userID`'s standing at `now`, and `messageID`'s strike when given, in the caller's transaction.
    static func standing(userID: String, messageID: String?, now: String, _ database: some SQLConnection) throws -> Standing {
        let messageStrike = try messageID.flatMap { id in
            try database.fetchOne(
                "SELECT id, user_id, reason, message_id, created_at, expires_at FROM strikes WHERE message_id = ? AND revoked_at IS NULL",
                [.text(id)]).map(Strikes.strike)
        }
        let banRow = try database.fetchOne(
            """
            SELECT user_id, reason, shadow, expires_at, created_by, created_at, strike_id, strike_step FROM bans
            WHERE user_id = ? AND (expires_at IS NULL OR expires_at > ?)
            """, [.text(userID), .text(now)])
        let cause = try banRow.map { row throws(RowDecodingError) in
            BanCause(strikeID: try row.decodeIfPresent("strike_id"), strikeStep: try row.decodeIfPresent("strike_step"))
        } ?? .none
        return Standing(activeStrikes: try Strikes.activeCount(userID: userID, now: now, database), messageStrike: messageStrike,
                        ban: try banRow.map(storedBan), banCause: cause)
    }

    /// Writes a planned ban with its audit entry and events; the bans' version it commits at.
    static func write(_ planned: PlannedBan, _ database: Connection) throws -> UInt64 {
        try upsert(planned.ban, cause: planned.cause, database)
        try insert(planned.audit, database)
        try EventLog.append(planned.events, database)
        return try advance(.bans, database)
    }

    /// Makes a planned strike. Its message has none in force: the plan was made on that.
    static func insert(_ strike: StoredStrike, _ database: some SQLConnection) throws {
        try database.execute(
            "INSERT INTO strikes (id, user_id, reason, message_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
            [.text(strike.id), .text(strike.userID), .text(strike.reason), strike.messageID.databaseValue, .text(strike.createdAt),
             .text(strike.expiresAt)])
    }
}
