import BouncerDomain
import Foundation
public enum FlagOutcome: Sendable, Equatable {
    case created(StoredFlag)
    /// The reporter's open flag on the message, already filed.
    case existing(StoredFlag)
    case messageNotFound
    case ownMessage
}

public struct FlagQuery: Sendable {
    public var state: FlagState?
    public var reason: String?
    public var channelID: String?
    public var reporterID: String?
    public var authorID: String?
    public var since: String?
    public var until: String?
    public var after: String?
    public var limit: Int

    public init(state: FlagState? = nil, reason: String? = nil, channelID: String? = nil, reporterID: String? = nil,
                authorID: String? = nil, since: String? = nil, until: String? = nil, after: String? = nil, limit: Int = 50) {
        self.state = state
        self.reason = reason
        self.channelID = channelID
        self.reporterID = reporterID
        self.authorID = authorID
        self.since = since
        self.until = until
        self.after = after
        self.limit = limit
    }
}

/// One message of the review queue: the message, its open flags, and their counts.
public struct ReviewItem: Sendable {
    public var message: StoredMessage
    public var flags: [StoredFlag]
    public var countsByReason: [String: Int]
    public var firstFlagAt: String
    public var lastFlagAt: String
}

public enum ReviewOrder: String, Sendable {
    case flagCount = "flag_count"
    case oldest
}

public struct ReviewResult: Sendable {
    public var message: StoredMessage?
    public var resolved: Int
    /// The strike the decision made on the author, and any ban the strike policy gave.
    public var strike: StrikeOutcome = .none
    /// The moderator's ban of the author (`ban_author`), with the bans' version it committed at;
    /// nil when none was asked for, or the strike policy's ban lasts at least as long.
    public var ban: StoredBan?
    public var banVersion: UInt64?

    public init(message: StoredMessage?, resolved: Int, strike: StrikeOutcome = .none, ban: StoredBan? = nil, banVersion: UInt64? = nil) {
        self.message = message
        self.resolved = resolved
        self.strike = strike
        self.ban = ban
        self.banVersion = banVersion
    }
}

public protocol FlagRepository: Sendable {
    /// What `reporterID`'s flag on the message is planned on (`FlagFiling.decide`); nil when there
    /// is no such message.
    func flagSnapshot(messageID: String, reporterID: String) async throws -> FlagSnapshot?
    /// Files a planned flag with its events in one transaction, hiding the message when the plan
    /// says so. The reporter's flag already open (another request filed it) is `existing`; `stale`
    /// when the message changed, or the reporters since reached or left the threshold.
    func applyFiling(_ filing: FlagFiling) async throws -> Planned<FlagOutcome>
    /// The reporter's open flag on the message.
    func openFlag(messageID: String, reporterID: String) async throws -> StoredFlag?
    /// Withdraws `flag` with its events; `stale` when it is no longer open.
    func withdraw(_ flag: StoredFlag, events: [NewEvent]) async throws -> Planned<StoredFlag>
    /// Open flags in the store.
    func openFlagCount() async throws -> Int
    /// Whether `reporterID` has an open flag on the message.
    func hasOpenFlag(messageID: String, reporterID: String) async throws -> Bool
    func flags(_ query: FlagQuery) async throws -> [StoredFlag]
    /// `reason`: only messages with an open flag of that reason.
    func reviewQueue(channelID: String?, reason: String?, order: ReviewOrder, offset: Int, limit: Int) async throws -> [ReviewItem]
    /// What a review of the message is planned on, read at `now`; nil when there is no such message.
    func reviewSnapshot(messageID: String, now: String) async throws -> ReviewSnapshot?
    /// Writes a review's plan in one transaction: every open flag of the message resolved, the
    /// message removed or shown again, its rules' review outcomes, the audit entry, the strike and
    /// bans, and the events. `stale` when the snapshot no longer holds.
    func applyReview(_ plan: ReviewPlan) async throws -> Planned<ReviewResult>
}

extension FlagRepository {
    /// Files a user's flag with no events, planned and applied as the service does.
    public func fileFlag(messageID: String, reporter: Viewer, reason: String, details: String?, custom: String?, id: String,
                         now: String, hideThreshold: Int) async throws -> FlagOutcome {
        for _ in 0..<PlanKeptGoingStale.attempts {
            let snapshot = try await flagSnapshot(messageID: messageID, reporterID: reporter.userID)
            switch FlagFiling.decide(snapshot, reporter: reporter, reason: reason, details: details, custom: custom, id: id, now: now,
                                     hideThreshold: hideThreshold) {
            case .answer(let outcome): return outcome
            case .file(let filing):
                if case .applied(let outcome) = try await applyFiling(filing) { return outcome }
            }
        }
        throw PlanKeptGoingStale(what: "flag on message \(messageID)")
    }
}

/// The flags table's columns, in the order every statement that reads a flag selects them.
private enum FlagColumns {
    static let list = ["id", "message_id", "channel_id", "reporter_id", "reason", "details", "custom", "rule_id", "state", "resolution",
                       "resolved_by", "resolved_at", "created_at"]
    static let joined = list.joined(separator: ", ")
    /// The same columns of the table aliased `f`, for statements that join flags with another.
    static let qualified = list.map { "f." + $0 }.joined(separator: ", ")
}

extension SQLStore {
    static var flagColumnList: [String] { FlagColumns.list }
    static var flagColumns: String { FlagColumns.joined }
    static var qualifiedFlagColumns: String { FlagColumns.qualified }

    /// The open flags of `messages` messages (bound in order), by message and id, read from the
    /// index of open flags alone (migration 0017; `FlagQueryPlanTests` holds it to that). The ids
    /// are a table joined first (CROSS JOIN keeps SQLite's order): as `message_id IN (...)` of 50
    /// ids, SQLite's planner, with no statistics, took every open flag by state and sorted them.
    static func openFlagsSQL(messages: Int) -> String {
        let values = Array(repeating: "(?)", count: messages).joined(separator: ", ")
        return "WITH wanted (message_id) AS (VALUES \(values)) SELECT \(qualifiedFlagColumns) FROM wanted CROSS JOIN flags f "
            + "WHERE f.message_id = wanted.message_id AND f.state = 'open' ORDER BY f.message_id, f.id"
    }

    public func flagSnapshot(messageID: String, reporterID: String) async throws -> FlagSnapshot? {
        try await read { database in
            guard let message = try MessageSQL.read(database, id: messageID) else { return nil }
            return FlagSnapshot(message: message, reporterFlag: try Self.openFlag(messageID: messageID, reporterID: reporterID, database),
                                otherReporters: try Self.otherReporters(messageID: messageID, reporterID: reporterID, database))
        }
    }

    public func applyFiling(_ filing: FlagFiling) async throws -> Planned<FlagOutcome> {
        do {
            return .applied(try await write { database in
                let (flag, message) = (filing.flag, filing.snapshot.message)
                guard try MessageSQL.read(database, id: message.id) == message else { throw StaleFiling() }
                if let existing = try Self.openFlag(messageID: message.id, reporterID: flag.reporterID, database) { return .existing(existing) }
                // Another instance may be filing the same flag: the store keeps one (migration
                // 0010), and this one answers with it.
                try database.execute("""
                    INSERT INTO flags (id, message_id, channel_id, reporter_id, reason, details, custom, created_at, author_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (message_id, reporter_id) WHERE state = 'open' AND reporter_id != 'system' DO NOTHING
                    """, [.text(flag.id), .text(message.id), .text(message.channelID), .text(flag.reporterID), .text(flag.reason),
                          flag.details.databaseValue, flag.custom.databaseValue, .text(flag.createdAt), .text(message.userID)])
                if database.changes == 0 {
                    guard let existing = try Self.openFlag(messageID: message.id, reporterID: flag.reporterID, database) else { throw StaleFiling() }
                    return .existing(existing)
                }
                // Counted after the insert, which waits for another instance's filing on the same
                // message to commit (the review queue's row): that filing's reporter counts too.
                let others = try Self.otherReporters(messageID: message.id, reporterID: flag.reporterID, database)
                guard FlagFiling.hides(message, otherReporters: others, threshold: filing.hideThreshold) == filing.hides else { throw StaleFiling() }
                if filing.hides { try database.execute("UPDATE messages SET hidden = 1 WHERE id = ?", [.text(message.id)]) }
                try EventLog.append(filing.events, database)
                return .created(flag)
            })
        } catch is StaleFiling {
            return .stale
        }
    }

    public func openFlag(messageID: String, reporterID: String) async throws -> StoredFlag? {
        try await read { database in try Self.openFlag(messageID: messageID, reporterID: reporterID, database) }
    }

    public func withdraw(_ flag: StoredFlag, events: [NewEvent]) async throws -> Planned<StoredFlag> {
        try await write { database in
            guard let withdrawn = try database.fetchOne(
                "UPDATE flags SET state = 'withdrawn' WHERE id = ? AND state = 'open' RETURNING \(Self.flagColumns)", [.text(flag.id)])
            else { return .stale }
            try EventLog.append(events, database)
            return .applied(try Self.storedFlag(withdrawn))
        }
    }

    static func openFlag(messageID: String, reporterID: String, _ database: some SQLConnection) throws -> StoredFlag? {
        try database.fetchOne("SELECT \(Self.flagColumns) FROM flags WHERE message_id = ? AND reporter_id = ? AND state = 'open'",
                              [.text(messageID), .text(reporterID)]).map(Self.storedFlag)
    }

    /// Users other than `reporterID` with open flags on the message (the service's own are not users).
    static func otherReporters(messageID: String, reporterID: String, _ database: some SQLConnection) throws -> Int {
        try database.fetchValue(
            "SELECT count(DISTINCT reporter_id) FROM flags WHERE message_id = ? AND state = 'open' AND reporter_id != ? AND reporter_id != ?",
            [.text(messageID), .text(SystemFlag.reporterID), .text(reporterID)], as: Int.self) ?? 0
    }

    public func hasOpenFlag(messageID: String, reporterID: String) async throws -> Bool {
        try await read { database in
            try database.fetchValue("SELECT 1 FROM flags WHERE message_id = ? AND reporter_id = ? AND state = 'open' LIMIT 1",
                                    [.text(messageID), .text(reporterID)], as: Int.self) != nil
        }
    }

    public func openFlagCount() async throws -> Int {
        try await read { database in
            try database.fetchValue("SELECT coalesce(sum(open_flags), 0) FROM review_queue", as: Int.self) ?? 0
        }
    }

    public func flags(_ query: FlagQuery) async throws -> [StoredFlag] {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        if let state = query.state { conditions.append("f.state = ?"); arguments.append(state.databaseValue) }
        if let reason = query.reason { conditions.append("f.reason = ?"); arguments.append(.text(reason)) }
        if let channel = query.channelID { conditions.append("f.channel_id = ?"); arguments.append(.text(channel)) }
        if let reporter = query.reporterID { conditions.append("f.reporter_id = ?"); arguments.append(.text(reporter)) }
        if let author = query.authorID { conditions.append("f.author_id = ?"); arguments.append(.text(author)) }
        if let since = query.since { conditions.append("f.created_at >= ?"); arguments.append(.text(since)) }
        if let until = query.until { conditions.append("f.created_at < ?"); arguments.append(.text(until)) }
        if let after = query.after { conditions.append("f.id > ?"); arguments.append(.text(after)) }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments.append(.integer(Int64(query.limit)))
        let sql = "SELECT \(Self.qualifiedFlagColumns) FROM flags f \(filter) ORDER BY f.id LIMIT ?"
        let bound = arguments
        return try await read { database in try database.fetchAll(sql, bound).map(Self.storedFlag) }
    }

    /// A page of the queue in two statements, whatever its length: the entries with their
    /// messages, then every open flag of those messages. (A message and its flags read entry by
    /// entry made a page of 50 cost a hundred statements.)
    public func reviewQueue(channelID: String?, reason: String?, order: ReviewOrder, offset: Int, limit: Int) async throws -> [ReviewItem] {
        let messageColumns = MessageSQL.columnList.map { "m." + $0 }.joined(separator: ", ")
        var sql = "SELECT \(messageColumns), q.first_flag_at, q.last_flag_at FROM review_queue q JOIN messages m ON m.id = q.message_id"
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        if let channelID {
            conditions.append("q.channel_id = ?")
            arguments.append(.text(channelID))
        }
        if let reason {
            // Through the flags' index by message: at most the queue's entries are looked at.
            conditions.append("EXISTS (SELECT 1 FROM flags WHERE flags.message_id = q.message_id AND flags.state = 'open' AND flags.reason = ?)")
            arguments.append(.text(reason))
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY " + (order == .flagCount ? "q.open_flags DESC, q.first_flag_at, q.message_id" : "q.first_flag_at, q.message_id")
            + " LIMIT ? OFFSET ?"
        arguments.append(contentsOf: [.integer(Int64(limit)), .integer(Int64(offset))])
        let query = sql
        let bound = arguments
        return try await read { database in
            let entries = try database.fetchAll(query, bound)
            guard !entries.isEmpty else { return [] }
            let messages = try entries.map(MessageSQL.message)
            let flags = try database.fetchAll(Self.openFlagsSQL(messages: messages.count), messages.map { .text($0.id) }).map(Self.storedFlag)
            let flagsByMessage = Dictionary(grouping: flags, by: \.messageID)
            return try zip(entries, messages).map { row, message in
                let flags = flagsByMessage[message.id] ?? []
                var counts: [String: Int] = [:]
                for flag in flags { counts[flag.reason, default: 0] += 1 }
                return ReviewItem(message: message, flags: flags, countsByReason: counts,
                                  firstFlagAt: try row.decode("first_flag_at"), lastFlagAt: try row.decode("last_flag_at"))
            }
        }
    }

    public func reviewSnapshot(messageID: String, now: String) async throws -> ReviewSnapshot? {
        try await read { database in try Self.reviewSnapshot(messageID: messageID, now: now, database) }
    }

    static func reviewSnapshot(messageID: String, now: String, _ database: some SQLConnection) throws -> ReviewSnapshot? {
        guard let message = try MessageSQL.read(database, id: messageID) else { return nil }
        let openFlags = try database.fetchValue("SELECT count(*) FROM flags WHERE message_id = ? AND state = 'open'",
                                                [.text(messageID)], as: Int.self) ?? 0
        return ReviewSnapshot(message: message, openFlags: openFlags,
                              author: try standing(userID: message.userID, messageID: messageID, now: now, database), now: now)
    }

    public func applyReview(_ plan: ReviewPlan) async throws -> Planned<ReviewResult> {
        try await write { database in
            let id = plan.snapshot.message.id
            guard try Self.reviewSnapshot(messageID: id, now: plan.snapshot.now, database) == plan.snapshot else { return .stale }
            let now = plan.snapshot.now
            try Self.recordRuleReviews(plan.ruleReviews, messageID: id, outcome: plan.ruleOutcome, now: now, database)
            try database.execute(
                "UPDATE flags SET state = 'resolved', resolution = ?, resolved_by = ?, resolved_at = ? WHERE message_id = ? AND state = 'open'",
                [.text(plan.resolution), .text(plan.moderatorID), .text(now), .text(id)])
            try MessageSQL.writeModeration(plan.message, database)
            try Self.insert(plan.audit, database)
            var result = plan.result
            if let strike = plan.strike { try Self.insert(strike, database) }
            if let ban = plan.strikeBan { result.strike.bansVersion = try Self.write(ban, database) }
            if let ban = plan.moderatorBan { result.banVersion = try Self.write(ban, database) }
            try EventLog.append(plan.events, database)
            return .applied(result)
        }
    }

    /// A row of `flagColumns`, read by position: every statement that reads flags selects those
    /// columns in that order, and a page of the review queue reads hundreds of flags (looking each
    /// column up by name cost more than reading it).
    static func storedFlag(_ row: Row) throws(RowDecodingError) -> StoredFlag {
        assert(row.columnNames == flagColumnList, "flags are read with flagColumns, in order")
        return StoredFlag(id: try row.decode(0), messageID: try row.decode(1), channelID: try row.decode(2),
                          reporterID: try row.decode(3), reason: try row.decode(4), details: try row.decodeIfPresent(5),
                          custom: try row.decodeIfPresent(6), ruleID: try row.decodeIfPresent(7), state: try row.decode(8),
                          resolution: try row.decodeIfPresent(9), resolvedBy: try row.decodeIfPresent(10), resolvedAt: try row.decodeIfPresent(11),
                          createdAt: try row.decode(12))
    }
}

/// Thrown inside a filing's transaction, so that what it wrote is rolled back, when its plan
/// turns out stale.
private struct StaleFiling: Error {}
