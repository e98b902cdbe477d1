import BouncerDomain
/// Whether the store can serve: the readiness probe asks this, never SQL directly, so another
/// backend can answer it the same way.
public protocol StoreHealthRepository: Sendable {
    /// Returns when the store answers a read and is at the schema version this release expects;
    /// throws otherwise.
    func checkReady() async throws
}

/// Facts about the store itself, kept as key-value pairs.
public protocol ServiceMetadataRepository: Sendable {
    func metadata(_ key: String) async throws -> String?
    func setMetadata(_ key: String, _ value: String) async throws
}

public struct StoreNotReady: Error, CustomStringConvertible {
    public var description: String
}

extension SQLStore {
    /// `StoreHealthRepository`: a read answered, at this release's schema version.
    public func checkReady() async throws {
        let expected = schemaVersion
        let version = try await read { database in
            try database.fetchValue("SELECT coalesce(max(version), 0) FROM schema_migrations", as: Int.self) ?? 0
        }
        guard version == expected else {
            throw StoreNotReady(description: "the store is at schema version \(version), this release expects \(expected)")
        }
    }
}

/// `ServiceMetadataRepository`.
extension SQLStore {
    public func metadata(_ key: String) async throws -> String? {
        try await read { database in
            try database.fetchValue("SELECT value FROM service_meta WHERE key = ?", [.text(key)], as: String.self)
        }
    }

    public func setMetadata(_ key: String, _ value: String) async throws {
        let now = Timestamp.now()
        try await write { database in
            try database.execute(
                """
                INSERT INTO service_meta (key, value, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                """,
                [.text(key), .text(value), .text(now)])
        }
    }
}
