/// The service's settings (`GET|PATCH /v1/config`), kept as one JSON document.
public protocol SettingsRepository: Sendable {
    func loadSettings() async throws -> String?
    func saveSettings(_ json: String, by actor: String) async throws
}

extension SQLStore {
    public func loadSettings() async throws -> String? {
        try await read { database in try database.fetchValue("SELECT value FROM settings WHERE id = 1", as: String.self) }
    }

    public func saveSettings(_ json: String, by actor: String) async throws {
        let now = Timestamp.now()
        try await write { database in
            try database.execute(
                """
                INSERT INTO settings (id, value, updated_at, updated_by) VALUES (1, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, updated_by = excluded.updated_by
                """, [.text(json), .text(now), .text(actor)])
        }
    }
}

extension SQLiteStore: SettingsRepository {}
