import Synchronization

/// Connections for reads, each on its own queue, used in turn. Each read runs in one read-only
/// transaction, so every query in it sees one snapshot, as the SQLite store's readers do.
public final class PostgresReaderPool: Sendable {
    private let sessions: [PostgresSession]
    private let next = Atomic<UInt>(0)

    init(url: String, count: Int) {
        sessions = (0..<max(1, count)).map { PostgresSession(url: url, label: "bouncer.postgres.reader.\($0)") }
    }

    public func read<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let session = sessions[Int(next.add(1, ordering: .relaxed).newValue % UInt(sessions.count))]
        return try await session.run { connection in
            try connection.executeScript("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do {
                let result = try work(connection)
                try connection.executeScript("COMMIT")
                return result
            } catch {
                _ = try? connection.executeScript("ROLLBACK")
                throw error
            }
        }
    }

    func close() {
        for session in sessions { session.close() }
    }
}
