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
}

public enum AppealDecisionOutcome: Sendable {
    case decided(AppealDecision)
    case notFound
    case alreadyDecided
    /// The decider is the appellant: nobody decides their own case.
    case ownCase
}

public protocol AppealRepository: Sendable {
    /// Files `author`'s appeal of their bounced or removed message, with its events.
    func appealMessage(messageID: String, author: Viewer, reason: String, id: String, now: String,
                       events: @escaping @Sendable (StoredAppeal, StoredMessage) throws -> [NewEvent]) async throws -> AppealFiling
    /// Files `userID`'s appeal of the ban in force on them (a shadow ban is not one they know of).
    func appealBan(userID: String, reason: String, id: String, now: String,
                   events: @escaping @Sendable (StoredAppeal) throws -> [NewEvent]) async throws -> AppealFiling
    /// `userID`'s appeals, newest first, before the appeal `before`.
    func appeals(ofUser userID: String, before: String?, limit: Int) async throws -> [StoredAppeal]
    /// Appeals in `state`, oldest first, after the appeal `after`, each with its message or ban.
    func appealQueue(state: String, after: String?, limit: Int) async throws -> [AppealItem]
    /// Upholds or overturns an open appeal, in one transaction with all that follows:
    /// - an overturn delivers the message (its rule hits `hitRules` become dismissed reviews, and
    ///   its strike is taken back, which lifts a ban the strike policy gave once the user's active
    ///   strikes fall below its step, with the events `strikeBanLifted` makes), or lifts the ban
    ///   (and takes back the strike its decision made, if any);
    /// - nobody decides their own case: `ownCase` when `moderator` is the appellant;
    /// - an upheld removal is a strike (`strike` makes its terms);
    /// - the audit entry, and the events `events` makes of the outcome.
    func decideAppeal(id: String, overturn: Bool, note: String?, by moderator: String, now: String, audit: AuditEntry,
                      strike: @escaping @Sendable (StoredMessage) -> StrikeTerms,
                      hitRules: @escaping @Sendable (StoredMessage) -> [String],
                      strikeBanLifted: @escaping @Sendable (_ userID: String) throws -> [NewEvent],
                      events: @escaping @Sendable (AppealDecision) throws -> [NewEvent]) async throws -> AppealDecisionOutcome
}

extension SQLStore {
    static var appealColumns: String {
        "id, target_type, target_id, user_id, reason, state, decided_by, decided_at, note, created_at"
    }

    public func appealMessage(messageID: String, author: Viewer, reason: String, id: String, now: String,
                              events: @escaping @Sendable (StoredAppeal, StoredMessage) throws -> [NewEvent]) async throws -> AppealFiling {
        try await write { database in
            guard let message = try MessageSQL.read(database, id: messageID),
                  MessageVisibility.isVisible(state: message.state, hidden: message.hidden, authorID: message.userID, to: author)
            else { return .notFound }
            guard message.userID == author.userID else { return .notAppealable }
            if try database.fetchValue("SELECT 1 FROM appeals WHERE target_type = 'message' AND target_id = ?", [.text(messageID)],
                                       as: Int.self) != nil { return .exists }
            guard message.state == .bounced || message.state == .removed else { return .notAppealable }
            let appeal = StoredAppeal(id: id, targetType: "message", targetID: messageID, userID: author.userID, reason: reason,
                                      createdAt: now)
            guard try Self.insert(appeal, database) else { return .exists }
            try EventLog.append(try events(appeal, message), database)
            return .created(appeal)
        }
    }

    public func appealBan(userID: String, reason: String, id: String, now: String,
                          events: @escaping @Sendable (StoredAppeal) throws -> [NewEvent]) async throws -> AppealFiling {
        try await write { database in
            guard let ban = try Self.banInForce(userID, now: now, database), !ban.shadow else { return .notFound }
            if try database.fetchValue(
                "SELECT 1 FROM appeals WHERE target_type = 'ban' AND target_id = ? AND (state = 'open' OR created_at >= ?) LIMIT 1",
                [.text(userID), .text(ban.createdAt)], as: Int.self) != nil { return .exists }
            let appeal = StoredAppeal(id: id, targetType: "ban", targetID: userID, userID: userID, reason: reason, createdAt: now)
            guard try Self.insert(appeal, database) else { return .exists }
            try EventLog.append(try events(appeal), database)
            return .created(appeal)
        }
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

    public func decideAppeal(id: String, overturn: Bool, note: String?, by moderator: String, now: String, audit: AuditEntry,
                             strike: @escaping @Sendable (StoredMessage) -> StrikeTerms,
                             hitRules: @escaping @Sendable (StoredMessage) -> [String],
                             strikeBanLifted: @escaping @Sendable (_ userID: String) throws -> [NewEvent],
                             events: @escaping @Sendable (AppealDecision) throws -> [NewEvent]) async throws -> AppealDecisionOutcome {
        try await write { database in
            guard let row = try database.fetchOne("SELECT \(Self.appealColumns) FROM appeals WHERE id = ?", [.text(id)]) else { return .notFound }
            var appeal = try Self.storedAppeal(row)
            guard appeal.userID != moderator else { return .ownCase }
            guard appeal.state == "open" else { return .alreadyDecided }
            appeal.state = overturn ? "overturned" : "upheld"
            appeal.decidedBy = moderator
            appeal.decidedAt = now
            appeal.note = note
            try database.execute("UPDATE appeals SET state = ?, decided_by = ?, decided_at = ?, note = ? WHERE id = ? AND state = 'open'",
                                 [.text(appeal.state), .text(moderator), .text(now), note.databaseValue, .text(id)])
            var decision = AppealDecision(appeal: appeal, message: nil, ban: nil, liftedBanVersion: nil, strike: .none)
            if appeal.targetType == "message" {
                if let message = try MessageSQL.read(database, id: appeal.targetID) {
                    if overturn {
                        try Self.overturn(message, hitRules: hitRules(message), now: now, database)
                        if let version = try Self.liftStrikeBanBelowStep(userID: message.userID, now: now,
                                                                        events: try strikeBanLifted(message.userID), database) {
                            decision.liftedBanVersion = version
                            decision.liftedStrikeBan = true
                        }
                    } else if message.state == .removed {
                        decision.strike = try Self.addStrike(strike(message), now: now, database)
                    }
                    decision.message = try MessageSQL.read(database, id: appeal.targetID)
                }
            } else if let ban = try Self.banInForce(appeal.targetID, now: now, database) {
                if overturn {
                    try Strikes.revokeBehindBan(userID: ban.userID, now: now, database)
                    try database.execute("DELETE FROM bans WHERE user_id = ?", [.text(ban.userID)])
                    decision.liftedBanVersion = try Self.advance(.bans, database)
                } else {
                    decision.ban = ban
                }
            }
            try Self.insert(audit, database)
            try EventLog.append(try events(decision), database)
            return .decided(decision)
        }
    }

    /// An overturned message's moderation undone: it is delivered to everybody, its rule hits
    /// count as dismissed, and its strike is taken back.
    private static func overturn(_ message: StoredMessage, hitRules: [String], now: String, _ database: Connection) throws {
        if message.state == .removed || message.state == .bounced {
            try database.execute(
                "UPDATE messages SET state = 'delivered', hidden = 0, removed_by = NULL, updated_at = ? WHERE id = ?",
                [.text(now), .text(message.id)])
        }
        try recordRuleReviews(hitRules, messageID: message.id, outcome: "dismissed", now: now, database)
        try Strikes.revoke(messageID: message.id, now: now, database)
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
