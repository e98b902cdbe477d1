import BouncerDomain
/// The service's settings (`GET|PATCH /v1/config`), kept as one JSON document.
public protocol SettingsRepository: Sendable {
    /// The stored document (nil before the first change) with its version.
    func loadSettings() async throws -> SettingsSnapshot
    /// Stores the document, with `events`, and returns its version (`ChangeTopic.settings`).
    @discardableResult
    func saveSettings(_ json: String, by actor: String, events: [NewEvent]) async throws -> UInt64
}

extension SettingsRepository {
    @discardableResult
    public func saveSettings(_ json: String, by actor: String) async throws -> UInt64 { try await saveSettings(json, by: actor, events: []) }
}

public struct SettingsSnapshot: Sendable, Equatable {
    public var sequence: UInt64
    public var json: String?

    public init(sequence: UInt64, json: String?) {
        self.sequence = sequence
        self.json = json
    }
}

extension SQLStore {
    public func loadSettings() async throws -> SettingsSnapshot {
        try await read { database in
            SettingsSnapshot(sequence: try Self.version(of: .settings, database),
                             json: try database.fetchValue("SELECT value FROM settings WHERE id = 1", as: String.self))
        }
    }

    @discardableResult
    public func saveSettings(_ json: String, by actor: String, events: [NewEvent]) async throws -> UInt64 {
        let now = Timestamp.now()
        return try await write { database in
            try database.execute(
                """
                INSERT INTO settings (id, value, updated_at, updated_by) VALUES (1, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, updated_by = excluded.updated_by
                """, [.text(json), .text(now), .text(actor)])
            try EventLog.append(events, database)
            return try Self.advance(.settings, database)
        }
    }
}
