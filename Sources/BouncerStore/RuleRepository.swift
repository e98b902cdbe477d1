import BouncerDomain
import Foundation
import JSON

public struct RuleQuery: Sendable {
    public var kind: RuleKind?
    public var action: RuleAction?
    public var mode: RuleMode?
    public var enabled: Bool?
    /// Searched in names and patterns.
    public var text: String?
    /// Rules after this id.
    public var after: String?
    public var limit: Int

    public init(kind: RuleKind? = nil, action: RuleAction? = nil, enabled: Bool? = nil, text: String? = nil, after: String? = nil, limit: Int = 50) {
        self.kind = kind
        self.action = action
        self.enabled = enabled
        self.text = text
        self.after = after
        self.limit = limit
    }
}

/// Every rule as a change left them, with the rules' version (`ChangeTopic.rules`): what the
/// rules engine compiles.
/// Each rule has what matching needs; its times and author are left empty (a start reads every
/// rule, 100,000 of them in a large list, and reading three more strings a rule was a tenth of a
/// second of it).
public struct RuleSnapshot: Sendable {
    public var sequence: UInt64
    public var rules: [StoredRule]
}

public protocol RuleRepository: Sendable {
    func allRules() async throws -> RuleSnapshot
    func rules(_ query: RuleQuery) async throws -> [StoredRule]
    func rule(id: String) async throws -> StoredRule?
    /// Inserts every rule in one transaction, or none, with `events`.
    func insertRules(_ rules: [StoredRule], events: [NewEvent]) async throws -> RuleSnapshot
    /// Nil when there is no such rule (and no event is written).
    func updateRule(_ rule: StoredRule, events: [NewEvent]) async throws -> RuleSnapshot?
    func deleteRule(id: String, events: [NewEvent]) async throws -> RuleSnapshot?
}

extension RuleRepository {
    public func insertRules(_ rules: [StoredRule]) async throws -> RuleSnapshot { try await insertRules(rules, events: []) }
    public func updateRule(_ rule: StoredRule) async throws -> RuleSnapshot? { try await updateRule(rule, events: []) }
    public func deleteRule(id: String) async throws -> RuleSnapshot? { try await deleteRule(id: id, events: []) }
}

extension SQLStore {
    static var ruleColumns: String {
        "id, name, kind, pattern, action, channels, enabled, priority, inflections, mode, params, exempt_roles, new_users_only_seconds, "
            + "created_at, updated_at, created_by"
    }

    public func allRules() async throws -> RuleSnapshot {
        try await read { database in
            RuleSnapshot(sequence: try Self.version(of: .rules, database), rules: try Self.readAllRules(database))
        }
    }

    public func rules(_ query: RuleQuery) async throws -> [StoredRule] {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        if let kind = query.kind { conditions.append("kind = ?"); arguments.append(kind.databaseValue) }
        if let action = query.action { conditions.append("action = ?"); arguments.append(action.databaseValue) }
        if let mode = query.mode { conditions.append("mode = ?"); arguments.append(mode.databaseValue) }
        if let enabled = query.enabled { conditions.append("enabled = ?"); arguments.append(.integer(enabled ? 1 : 0)) }
        if let text = query.text {
            let like = "%" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_") + "%"
            conditions.append("(name LIKE ? ESCAPE '\\' OR pattern LIKE ? ESCAPE '\\')")
            arguments.append(contentsOf: [.text(like), .text(like)])
        }
        if let after = query.after { conditions.append("id > ?"); arguments.append(.text(after)) }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments.append(.integer(Int64(query.limit)))
        let sql = "SELECT \(Self.ruleColumns) FROM rules \(filter) ORDER BY id LIMIT ?"
        let bound = arguments
        return try await read { database in try database.fetchAll(sql, bound).map(Self.storedRule) }
    }

    public func rule(id: String) async throws -> StoredRule? {
        try await read { database in
            try database.fetchOne("SELECT \(Self.ruleColumns) FROM rules WHERE id = ?", [.text(id)]).map(Self.storedRule)
        }
    }

    public func insertRules(_ rules: [StoredRule], events: [NewEvent]) async throws -> RuleSnapshot {
        try await write { database in
            // Whole chunks in one statement each, the rest one by one: a large import is a few
            // hundred statements, not one a rule (a round trip each, for PostgreSQL), and only two
            // statements are ever prepared (SQLite keeps them).
            let whole = rules.count / Self.insertChunk * Self.insertChunk
            for start in stride(from: 0, to: whole, by: Self.insertChunk) {
                try database.execute(Self.insertChunkSQL, rules[start..<start + Self.insertChunk].flatMap(Self.values))
            }
            for rule in rules[whole...] {
                try database.execute("INSERT INTO rules (\(Self.ruleColumns)) VALUES \(Self.ruleRow)", Self.values(rule))
            }
            try EventLog.append(events, database)
            return RuleSnapshot(sequence: try Self.advance(.rules, database), rules: try Self.readAllRules(database))
        }
    }

    public func updateRule(_ rule: StoredRule, events: [NewEvent]) async throws -> RuleSnapshot? {
        try await write { database in
            try database.execute(
                """
                UPDATE rules SET name = ?, kind = ?, pattern = ?, action = ?, channels = ?, enabled = ?, priority = ?,
                    inflections = ?, mode = ?, params = ?, exempt_roles = ?, new_users_only_seconds = ?, updated_at = ? WHERE id = ?
                """,
                [.text(rule.name), rule.kind.databaseValue, .text(rule.pattern), rule.action.databaseValue,
                 .text(Self.encodeChannels(rule.channels)), .integer(rule.enabled ? 1 : 0), .integer(Int64(rule.priority)),
                 Self.inflectionsValue(rule), rule.mode.databaseValue, Self.paramsValue(rule), .text(Self.encodeRoles(rule.exemptRoles)),
                 rule.newUsersOnlySeconds.map { .integer(Int64($0)) } ?? .null, .text(rule.updatedAt), .text(rule.id)])
            guard database.changes > 0 else { return nil }
            try EventLog.append(events, database)
            return RuleSnapshot(sequence: try Self.advance(.rules, database), rules: try Self.readAllRules(database))
        }
    }

    public func deleteRule(id: String, events: [NewEvent]) async throws -> RuleSnapshot? {
        try await write { database in
            try database.execute("DELETE FROM rules WHERE id = ?", [.text(id)])
            guard database.changes > 0 else { return nil }
            try EventLog.append(events, database)
            return RuleSnapshot(sequence: try Self.advance(.rules, database), rules: try Self.readAllRules(database))
        }
    }

    private static var insertChunk: Int { 256 }
    private static var ruleRow: String { "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" }
    private static var insertChunkSQL: String {
        "INSERT INTO rules (\(ruleColumns)) VALUES " + Array(repeating: ruleRow, count: insertChunk).joined(separator: ", ")
    }

    /// The columns matching needs, in `ruleColumns`' order (see `RuleSnapshot`).
    package static var matchingColumns: String {
        "id, name, kind, pattern, action, channels, enabled, priority, inflections, mode, params, exempt_roles, new_users_only_seconds"
    }
    package static var matchingColumnCount: Int { 13 }

    /// Every rule with what matching needs (`SQLStore.readAllRules`'s default).
    public static func readAllRules(_ connection: Connection) throws -> [StoredRule] {
        try connection.fetchAll("SELECT \(matchingColumns) FROM rules ORDER BY id").map { row in
            try storedRule(columns: matchingColumnCount) { row[$0] }
        }
    }

    private static func values(_ rule: StoredRule) -> [DatabaseValue] {
        [.text(rule.id), .text(rule.name), rule.kind.databaseValue, .text(rule.pattern), rule.action.databaseValue,
         .text(encodeChannels(rule.channels)), .integer(rule.enabled ? 1 : 0), .integer(Int64(rule.priority)),
         inflectionsValue(rule), rule.mode.databaseValue, paramsValue(rule), .text(encodeRoles(rule.exemptRoles)),
         rule.newUsersOnlySeconds.map { .integer(Int64($0)) } ?? .null, .text(rule.createdAt), .text(rule.updatedAt), .text(rule.createdBy)]
    }

    private static func paramsValue(_ rule: StoredRule) -> DatabaseValue {
        guard let params = rule.params, let json = try? JSONText.encodedString(params.fields) else { return .null }
        return .text(json)
    }


    static func encodeRoles(_ roles: [Role]) -> String {
        roles.isEmpty ? "[]" : (try? JSONText.encodedString(roles.map(\.rawValue))) ?? "[]"
    }


    private static func inflectionsValue(_ rule: StoredRule) -> DatabaseValue {
        rule.inflections.map { .integer($0 ? 1 : 0) } ?? .null
    }

    /// A row of `ruleColumns`, read by position: a start reads every rule, and finding 12 columns
    /// by name in each of 100,000 rows was a good part of that.
    private static func storedRule(_ row: Row) throws(RowDecodingError) -> StoredRule {
        try storedRule(columns: row.values.count) { row[$0] }
    }

    /// A rule from its first `columns` columns of `ruleColumns`: all of them, or the
    /// `matchingColumnCount` that matching needs (a rule read for the engine has no times).
    package static func storedRule(columns: Int, _ column: (Int) -> DatabaseValue) throws(RowDecodingError) -> StoredRule {
        func value<T: DatabaseValueConvertible>(_ index: Int) throws(RowDecodingError) -> T {
            try Row.decode(column(index), column: "rules #\(index)")
        }
        func valueIfPresent<T: DatabaseValueConvertible>(_ index: Int) throws(RowDecodingError) -> T? {
            let found = column(index)
            if case .null = found { return nil }
            let decoded: T = try Row.decode(found, column: "rules #\(index)")
            return decoded
        }
        let kind: RuleKind = try value(2)
        let definition = RuleDefinition(id: try value(0), name: try value(1), kind: kind, pattern: try value(3),
                                        action: try valueIfPresent(4), channels: try JSONColumn.channels(try value(5)), enabled: try value(6),
                                        priority: try value(7), inflections: try valueIfPresent(8), mode: try value(9),
                                        params: try JSONColumn.params(try valueIfPresent(10), kind: kind), exemptRoles: try JSONColumn.roles(try value(11)),
                                        newUsersOnlySeconds: try valueIfPresent(12))
        guard columns > matchingColumnCount else { return StoredRule(definition, createdAt: "", updatedAt: "", createdBy: "") }
        return StoredRule(definition, createdAt: try value(13), updatedAt: try value(14), createdBy: try value(15))
    }

    static func encodeChannels(_ channels: [String]) -> String {
        (try? JSONText.encodedString(channels)) ?? JSONColumn.everyChannel
    }

}
