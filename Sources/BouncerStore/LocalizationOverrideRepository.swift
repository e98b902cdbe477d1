import BouncerDomain
/// Admin overrides of localized texts, by locale and key.
public protocol LocalizationOverrideRepository: Sendable {
    /// Every override (locale -> key -> text) with their version.
    func allOverrides() async throws -> OverrideSnapshot
    /// Sets these texts for one locale in one transaction, and returns every override as it
    /// stands after that commit, with their version (`ChangeTopic.overrides`, to order reloads).
    func setOverrides(locale: String, strings: [String: String], by actor: String, events: [NewEvent]) async throws -> OverrideSnapshot
    /// Drops one override; nil when there was none (and no event is written).
    func deleteOverride(locale: String, key: String, events: [NewEvent]) async throws -> OverrideSnapshot?
}

extension LocalizationOverrideRepository {
    public func setOverrides(locale: String, strings: [String: String], by actor: String) async throws -> OverrideSnapshot {
        try await setOverrides(locale: locale, strings: strings, by: actor, events: [])
    }

    public func deleteOverride(locale: String, key: String) async throws -> OverrideSnapshot? {
        try await deleteOverride(locale: locale, key: key, events: [])
    }
}

public struct OverrideSnapshot: Sendable {
    public var sequence: UInt64
    public var overrides: [String: [String: String]]

    public init(sequence: UInt64, overrides: [String: [String: String]]) {
        self.sequence = sequence
        self.overrides = overrides
    }
}

extension SQLStore {
    public func allOverrides() async throws -> OverrideSnapshot {
        try await read { database in
            OverrideSnapshot(sequence: try Self.version(of: .overrides, database), overrides: try Self.readOverrides(database))
        }
    }

    public func setOverrides(locale: String, strings: [String: String], by actor: String, events: [NewEvent]) async throws -> OverrideSnapshot {
        let now = Timestamp.now()
        return try await write { database in
            for (key, value) in strings.sorted(by: { $0.key < $1.key }) {
                try database.execute(
                    """
                    INSERT INTO localization_overrides (locale, key, value, updated_at, updated_by) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (locale, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at,
                        updated_by = excluded.updated_by
                    """,
                    [.text(locale), .text(key), .text(value), .text(now), .text(actor)])
            }
            try EventLog.append(events, database)
            // Read back inside the change's transaction, which holds the version's row: versions
            // follow the order of the commits.
            return OverrideSnapshot(sequence: try Self.advance(.overrides, database), overrides: try Self.readOverrides(database))
        }
    }

    public func deleteOverride(locale: String, key: String, events: [NewEvent]) async throws -> OverrideSnapshot? {
        return try await write { database in
            try database.execute("DELETE FROM localization_overrides WHERE locale = ? AND key = ?", [.text(locale), .text(key)])
            guard database.changes > 0 else { return nil }
            try EventLog.append(events, database)
            return OverrideSnapshot(sequence: try Self.advance(.overrides, database), overrides: try Self.readOverrides(database))
        }
    }

    private static func readOverrides(_ database: Connection) throws -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for row in try database.fetchAll("SELECT locale, key, value FROM localization_overrides") {
            let locale: String = try row.decode("locale"), key: String = try row.decode("key"), value: String = try row.decode("value")
            result[locale, default: [:]][key] = value
        }
        return result
    }
}
