import BouncerDomain

public enum AppealFiling: Sendable, Equatable {
    case created(StoredAppeal)
    /// The target was appealed already (a message once for good, a ban once while it lasts).
    case exists
    /// The caller may see the target but not appeal it (not theirs, or not bounced or removed).
    case notAppealable
    /// No such message the caller may see, or no ban in force on them.
    case notFound
}

/// An appeal with what a moderator decides it on.
public struct AppealItem: Sendable {
    public var appeal: StoredAppeal
    /// The message appealed, as it is now (nil for a ban, or a message erased since).
    public var message: StoredMessage?
    /// Every flag of that message, oldest first.
    public var flags: [StoredFlag]
    /// The message's earlier texts, oldest first.
    public var revisions: [MessageRevision]
    /// The ban appealed, while it is in force.
    public var ban: StoredBan?
}

/// What a decision changed, for its answer and events.
public struct AppealDecision: Sendable {
    public var appeal: StoredAppeal
    /// The message appealed, as the decision left it.
    public var message: StoredMessage?
    /// The ban still in force on the appellant, for a ban's appeal.
    public var ban: StoredBan?
    /// The bans' version at which an overturn lifted the ban: the ban appealed, or a ban the strike
    /// policy gave once the strike taken back left the user below its step.
    public var liftedBanVersion: UInt64?
    /// Whether the ban lifted was the strike policy's, lifted because the user's active strikes no
    /// longer reach its step.
    public var liftedStrikeBan: Bool = false
    /// The strike an upheld removal added, and any ban it brought.
    public var strike: StrikeOutcome

    public init(appeal: StoredAppeal, message: StoredMessage?, ban: StoredBan?, liftedBanVersion: UInt64? = nil,
                liftedStrikeBan: Bool = false, strike: StrikeOutcome = .none) {
        self.appeal = appeal
        self.message = message
        self.ban = ban
        self.liftedBanVersion = liftedBanVersion
        self.liftedStrikeBan = liftedStrikeBan
        self.strike = strike
    }
}

public protocol AppealRepository: Sendable {
    /// What an appeal of message `messageID` is planned on (`NewAppeal.ofMessage`).
    func messageAppealTarget(messageID: String) async throws -> AppealTargetSnapshot
    /// What `userID`'s appeal of their ban is planned on, at `now` (`NewAppeal.ofBan`).
    func banAppealTarget(userID: String, now: String) async throws -> AppealTargetSnapshot
    /// Files a planned appeal with its events, while its snapshot holds (`stale` when not); an
    /// appeal another request filed at once is `exists`.
    func applyFiling(_ filing: NewAppeal) async throws -> Planned<AppealFiling>
    /// `userID`'s appeals, newest first, before the appeal `before`.
    func appeals(ofUser userID: String, before: String?, limit: Int) async throws -> [StoredAppeal]
    /// Appeals in `state`, oldest first, after the appeal `after`, each with its message or ban.
    func appealQueue(state: String, after: String?, limit: Int) async throws -> [AppealItem]
    /// What a decision of appeal `id` is planned on, read at `now`; nil when there is no such appeal.
    func appealSnapshot(id: String, now: String) async throws -> AppealSnapshot?
    /// Writes an appeal decision's plan in one transaction: the appeal decided, an overturned
    /// message delivered again (its rule hits dismissed, its strike taken back) or the ban
    /// appealed lifted, a ban the strike policy gave lifted once the user is below its step, an
    /// upheld removal's strike and its ban, the audit entry and the events. `stale` when the
    /// snapshot no longer holds.
    func applyAppealDecision(_ plan: AppealPlan) async throws -> Planned<AppealDecision>
}

extension SQLStore {
    static var appealColumns: String {
        "id, target_type, target_id, user_id, reason, state, decided_by, decided_at, note, created_at"
    }

    public func messageAppealTarget(messageID: String) async throws -> AppealTargetSnapshot {
        try await read { database in try Self.messageAppealTarget(messageID: messageID, database) }
    }

    public func banAppealTarget(userID: String, now: String) async throws -> AppealTargetSnapshot {
        try await read { database in try Self.banAppealTarget(userID: userID, now: now, database) }
    }

    public func applyFiling(_ filing: NewAppeal) async throws -> Planned<AppealFiling> {
        try await write { database in
            let appeal = filing.appeal
            let current = appeal.targetType == "ban"
                ? try Self.banAppealTarget(userID: appeal.userID, now: appeal.createdAt, database)
                : try Self.messageAppealTarget(messageID: appeal.targetID, database)
            guard current == filing.snapshot else { return .stale }
            guard try Self.insert(appeal, database) else { return .applied(.exists) }
            try EventLog.append(filing.events, database)
            return .applied(.created(appeal))
        }
    }

    static func messageAppealTarget(messageID: String, _ database: some SQLConnection) throws -> AppealTargetSnapshot {
        AppealTargetSnapshot(
            message: try MessageSQL.read(database, id: messageID), ban: nil,
            appealed: try database.fetchValue("SELECT 1 FROM appeals WHERE target_type = 'message' AND target_id = ?", [.text(messageID)],
                                              as: Int.self) != nil)
    }

    /// The ban in force on `userID` at `now`, and whether it has an appeal: one open, or one filed since it was given.
    static func banAppealTarget(userID: String, now: String, _ database: some SQLConnection) throws -> AppealTargetSnapshot {
        guard let ban = try Self.banInForce(userID, now: now, database) else { return AppealTargetSnapshot(message: nil, ban: nil, appealed: false) }
        let appealed = try database.fetchValue(
            "SELECT 1 FROM appeals WHERE target_type = 'ban' AND target_id = ? AND (state = 'open' OR created_at >= ?) LIMIT 1",
            [.text(userID), .text(ban.createdAt)], as: Int.self) != nil
        return AppealTargetSnapshot(message: nil, ban: ban, appealed: appealed)
    }

    public func appeals(ofUser userID: String, before: String?, limit: Int) async throws -> [StoredAppeal] {
        try await read { database in
            let bound: [DatabaseValue] = before.map { [.text(userID), .text($0), .integer(Int64(limit))] } ?? [.text(userID), .integer(Int64(limit))]
            return try database.fetchAll(
                "SELECT \(Self.appealColumns) FROM appeals WHERE user_id = ?\(before == nil ? "" : " AND id < ?") ORDER BY id DESC LIMIT ?",
                bound).map(Self.storedAppeal)
        }
    }

    public func appealQueue(state: String, after: String?, limit: Int) async throws -> [AppealItem] {
        try await read { database in
            let appeals = try database.fetchAll(
                "SELECT \(Self.appealColumns) FROM appeals WHERE state = ? AND id > ? ORDER BY id LIMIT ?",
                [.text(state), .text(after ?? ""), .integer(Int64(limit))]).map(Self.storedAppeal)
            let messageIDs = appeals.filter { $0.targetType == "message" }.map { DatabaseValue.text($0.targetID) }
            let banned = appeals.filter { $0.targetType == "ban" }.map { DatabaseValue.text($0.targetID) }
            // Four statements a page, whatever its length: each reads what the page's appeals need at once.
            var messages: [String: StoredMessage] = [:]
            var flags: [String: [StoredFlag]] = [:]
            var revisions: [String: [MessageRevision]] = [:]
            var bans: [String: StoredBan] = [:]
            if !messageIDs.isEmpty {
                let marks = Self.marks(messageIDs.count)
                for row in try database.fetchAll("SELECT \(MessageSQL.columns) FROM messages WHERE id IN (\(marks))", messageIDs) {
                    let message = try MessageSQL.message(row)
                    messages[message.id] = message
                }
                for row in try database.fetchAll(
                    "SELECT \(Self.flagColumns) FROM flags WHERE message_id IN (\(marks)) ORDER BY message_id, id LIMIT 10000", messageIDs) {
                    let flag = try Self.storedFlag(row)
                    flags[flag.messageID, default: []].append(flag)
                }
                for row in try database.fetchAll(
                    """
                    SELECT message_id, revision, text, state, moderation, created_at FROM message_revisions
                    WHERE message_id IN (\(marks)) ORDER BY message_id, revision LIMIT 10000
                    """, messageIDs) {
                    revisions[try row.decode("message_id"), default: []].append(
                        MessageRevision(revision: try row.decode("revision"), text: try row.decode("text"), state: try row.decode("state"),
                                        moderation: try row.decodeIfPresent("moderation"), createdAt: try row.decode("created_at")))
                }
            }
            if !banned.isEmpty {
                for row in try database.fetchAll(
                    """
                    SELECT user_id, reason, shadow, expires_at, created_by, created_at FROM bans
                    WHERE user_id IN (\(Self.marks(banned.count))) AND (expires_at IS NULL OR expires_at > ?)
                    """, banned + [.text(Timestamp.now())]) {
                    let ban = try Self.storedBan(row)
                    bans[ban.userID] = ban
                }
            }
            return appeals.map { appeal in
                let isMessage = appeal.targetType == "message"
                return AppealItem(appeal: appeal, message: isMessage ? messages[appeal.targetID] : nil,
                                  flags: isMessage ? flags[appeal.targetID] ?? [] : [],
                                  revisions: isMessage ? revisions[appeal.targetID] ?? [] : [],
                                  ban: isMessage ? nil : bans[appeal.targetID])
            }
        }
    }

    public func appealSnapshot(id: String, now: String) async throws -> AppealSnapshot? {
        try await read { database in try Self.appealSnapshot(id: id, now: now, database) }
    }

    static func appealSnapshot(id: String, now: String, _ database: some SQLConnection) throws -> AppealSnapshot? {
        guard let row = try database.fetchOne("SELECT \(Self.appealColumns) FROM appeals WHERE id = ?", [.text(id)]) else { return nil }
        let appeal = try Self.storedAppeal(row)
        let isMessage = appeal.targetType == "message"
        return AppealSnapshot(appeal: appeal, message: isMessage ? try MessageSQL.read(database, id: appeal.targetID) : nil,
                              appellant: try standing(userID: appeal.userID, messageID: isMessage ? appeal.targetID : nil, now: now, database),
                              now: now)
    }

    public func applyAppealDecision(_ plan: AppealPlan) async throws -> Planned<AppealDecision> {
        try await write { database in
            let snapshot = plan.snapshot
            guard try Self.appealSnapshot(id: snapshot.appeal.id, now: snapshot.now, database) == snapshot else { return .stale }
            let (appeal, now) = (plan.appeal, snapshot.now)
            try database.execute("UPDATE appeals SET state = ?, decided_by = ?, decided_at = ?, note = ? WHERE id = ?",
                                 [.text(appeal.state), appeal.decidedBy.databaseValue, appeal.decidedAt.databaseValue, appeal.note.databaseValue,
                                  .text(appeal.id)])
            if let message = plan.message, message != snapshot.message { try MessageSQL.writeModeration(message, database) }
            if let message = plan.message {
                try Self.recordRuleReviews(plan.dismissedRules, messageID: message.id, outcome: "dismissed", now: now, database)
            }
            if let strikeID = plan.revokedStrikeID { try Strikes.revoke(id: strikeID, now: now, database) }
            var result = plan.result
            if let lifted = plan.liftedBan {
                try database.execute("DELETE FROM bans WHERE user_id = ?", [.text(lifted.userID)])
                if let audit = lifted.audit { try Self.insert(audit, database) }
                try EventLog.append(lifted.events, database)
                result.liftedBanVersion = try Self.advance(.bans, database)
            }
            if let strike = plan.strike { try Self.insert(strike, database) }
            if let ban = plan.strikeBan { result.strike.bansVersion = try Self.write(ban, database) }
            try Self.insert(plan.audit, database)
            try EventLog.append(plan.events, database)
            return .applied(result)
        }
    }

    /// Each rule's review outcome for a message: the latest decision about it counts.
    static func recordRuleReviews(_ ruleIDs: [String], messageID: String, outcome: String, now: String, _ database: some SQLConnection) throws {
        for ruleID in Set(ruleIDs).sorted() {
            try database.execute("""
                INSERT INTO rule_reviews (rule_id, message_id, outcome, reviewed_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (rule_id, message_id) DO UPDATE SET outcome = excluded.outcome, reviewed_at = excluded.reviewed_at
                """, [.text(ruleID), .text(messageID), .text(outcome), .text(now)])
        }
    }

    /// Inserts the appeal unless the target has one the store keeps to one (an appeal filed
    /// through another instance at once); false then.
    private static func insert(_ appeal: StoredAppeal, _ database: Connection) throws -> Bool {
        try database.execute(
            """
            INSERT INTO appeals (id, target_type, target_id, user_id, reason, state, created_at) VALUES (?, ?, ?, ?, ?, 'open', ?)
            ON CONFLICT DO NOTHING
            """, [.text(appeal.id), .text(appeal.targetType), .text(appeal.targetID), .text(appeal.userID), .text(appeal.reason),
                  .text(appeal.createdAt)])
        return database.changes > 0
    }

    static func banInForce(_ userID: String, now: String, _ database: some SQLConnection) throws -> StoredBan? {
        try database.fetchOne(
            "SELECT user_id, reason, shadow, expires_at, created_by, created_at FROM bans WHERE user_id = ? AND (expires_at IS NULL OR expires_at > ?)",
            [.text(userID), .text(now)]).map(storedBan)
    }

    private static func marks(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ", ") }

    static func storedAppeal(_ row: Row) throws(RowDecodingError) -> StoredAppeal {
        StoredAppeal(id: try row.decode("id"), targetType: try row.decode("target_type"), targetID: try row.decode("target_id"),
                     userID: try row.decode("user_id"), reason: try row.decode("reason"), state: try row.decode("state"),
                     decidedBy: try row.decodeIfPresent("decided_by"), decidedAt: try row.decodeIfPresent("decided_at"), note: try row.decodeIfPresent("note"),
                     createdAt: try row.decode("created_at"))
    }
}
