import BouncerDomain

/// Hits of one rule in one hour, as counted in memory and added to the store.
public struct RuleHitCount: Sendable, Equatable {
    public var ruleID: String
    /// Hours since 1970 (UTC).
    public var hour: Int64
    public var enforced: Int
    public var observed: Int

    public init(ruleID: String, hour: Int64, enforced: Int, observed: Int) {
        self.ruleID = ruleID
        self.hour = hour
        self.enforced = enforced
        self.observed = observed
    }
}

/// What one rule did over a time: its hits, and how reviews judged the messages it hit.
public struct RuleStats: Sendable, Equatable {
    public var ruleID: String
    public var enforcedHits: Int = 0
    public var observedHits: Int = 0
    /// Hit messages a review removed, or whose author it banned.
    public var confirmed: Int = 0
    /// Hit messages whose flags a review dismissed.
    public var dismissed: Int = 0

    public init(ruleID: String) {
        self.ruleID = ruleID
    }

    public var hits: Int { enforcedHits + observedHits }
    public var reviewed: Int { confirmed + dismissed }
    /// Confirmed of reviewed; nil with no reviews.
    public var precision: Double? { reviewed == 0 ? nil : Double(confirmed) / Double(reviewed) }
}

/// A time range of stats: from `since` (inclusive) to `until` (exclusive), either open.
public struct StatsPeriod: Sendable, Equatable {
    /// RFC 3339 times as `Timestamp` writes them.
    public var since: String?
    public var until: String?

    public init(since: String? = nil, until: String? = nil) {
        self.since = since
        self.until = until
    }

    /// The hours (since 1970) whose hit counts the period takes, `since..<until`: every hour it
    /// overlaps, as hits are counted by the hour.
    public var hours: (since: Int64, until: Int64) {
        let since = since.flatMap(Timestamp.epochSeconds).map { Int64(($0 / 3600).rounded(.down)) } ?? 0
        let until = until.flatMap(Timestamp.epochSeconds).map { Int64(($0 / 3600).rounded(.up)) } ?? Int64(Int32.max)
        return (since, until)
    }
}

/// The numbers behind rule statistics and rules for new users. Hits reach the store in batches
/// (`RuleHits` counts them in memory), so a send writes nothing for them; review outcomes are
/// written in the review's own transaction (`FlagRepository.review`).
public protocol RuleStatsRepository: Sendable {
    /// Adds the counts to each rule's hour, in one transaction.
    func addRuleHits(_ counts: [RuleHitCount]) async throws
    /// The stats of every rule there is now (deleted rules' counts are left out), by rule id.
    /// `ruleID`: of that rule alone.
    func ruleStats(_ period: StatsPeriod, ruleID: String?) async throws -> [String: RuleStats]
    /// Records when users were first seen; a user already known keeps the earlier time.
    func recordFirstSeen(_ users: [(userID: String, at: String)]) async throws
    /// When a user was first seen, or nil for one never seen.
    func firstSeen(userID: String) async throws -> String?
}

extension SQLStore {
    public func addRuleHits(_ counts: [RuleHitCount]) async throws {
        guard !counts.isEmpty else { return }
        try await writeApart { database in
            // In key order, so two instances adding at once lock rows in the same order.
            for count in counts.sorted(by: { ($0.ruleID, $0.hour) < ($1.ruleID, $1.hour) }) {
                try database.execute("""
                    INSERT INTO rule_hits (rule_id, hour, enforced, observed) VALUES (?, ?, ?, ?)
                    ON CONFLICT (rule_id, hour) DO UPDATE SET enforced = rule_hits.enforced + excluded.enforced,
                        observed = rule_hits.observed + excluded.observed
                    """, [.text(count.ruleID), .integer(count.hour), .integer(Int64(count.enforced)), .integer(Int64(count.observed))])
            }
        }
    }

    public func ruleStats(_ period: StatsPeriod, ruleID: String?) async throws -> [String: RuleStats] {
        let (sinceHour, untilHour) = period.hours
        return try await read { database in
            var stats: [String: RuleStats] = [:]
            let only = ruleID.map { [DatabaseValue.text($0)] } ?? []
            for row in try database.fetchAll("SELECT id FROM rules" + (ruleID == nil ? "" : " WHERE id = ?"), only) {
                let id: String = try row.decode("id")
                stats[id] = RuleStats(ruleID: id)
            }
            var hitConditions = ["hour >= ?", "hour < ?"]
            var hitArguments: [DatabaseValue] = [.integer(sinceHour), .integer(untilHour)]
            var reviewConditions: [String] = []
            var reviewArguments: [DatabaseValue] = []
            if let since = period.since { reviewConditions.append("reviewed_at >= ?"); reviewArguments.append(.text(since)) }
            if let until = period.until { reviewConditions.append("reviewed_at < ?"); reviewArguments.append(.text(until)) }
            if let ruleID {
                hitConditions.append("rule_id = ?"); hitArguments.append(.text(ruleID))
                reviewConditions.append("rule_id = ?"); reviewArguments.append(.text(ruleID))
            }
            // Cast: PostgreSQL sums BIGINT columns as NUMERIC, which reads as no integer.
            for row in try database.fetchAll("""
                SELECT rule_id, CAST(sum(enforced) AS BIGINT) AS enforced, CAST(sum(observed) AS BIGINT) AS observed FROM rule_hits
                WHERE \(hitConditions.joined(separator: " AND ")) GROUP BY rule_id
                """, hitArguments) {
                let id: String = try row.decode("rule_id")
                guard stats[id] != nil else { continue }
                stats[id]?.enforcedHits = try row.decode("enforced", as: Int.self)
                stats[id]?.observedHits = try row.decode("observed", as: Int.self)
            }
            let reviewFilter = reviewConditions.isEmpty ? "" : "WHERE " + reviewConditions.joined(separator: " AND ")
            for row in try database.fetchAll("""
                SELECT rule_id, sum(CASE WHEN outcome = 'confirmed' THEN 1 ELSE 0 END) AS confirmed,
                       sum(CASE WHEN outcome = 'dismissed' THEN 1 ELSE 0 END) AS dismissed
                FROM rule_reviews \(reviewFilter) GROUP BY rule_id
                """, reviewArguments) {
                let id: String = try row.decode("rule_id")
                guard stats[id] != nil else { continue }
                stats[id]?.confirmed = try row.decode("confirmed", as: Int.self)
                stats[id]?.dismissed = try row.decode("dismissed", as: Int.self)
            }
            return stats
        }
    }

    public func recordFirstSeen(_ users: [(userID: String, at: String)]) async throws {
        guard !users.isEmpty else { return }
        try await writeApart { database in
            for user in users.sorted(by: { $0.userID < $1.userID }) {
                try database.execute("""
                    INSERT INTO user_first_seen (user_id, first_seen_at) VALUES (?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET first_seen_at = excluded.first_seen_at
                    WHERE excluded.first_seen_at < user_first_seen.first_seen_at
                    """, [.text(user.userID), .text(user.at)])
            }
        }
    }

    public func firstSeen(userID: String) async throws -> String? {
        try await read { database in
            try database.fetchValue("SELECT first_seen_at FROM user_first_seen WHERE user_id = ?", [.text(userID)], as: String.self)
        }
    }
}
