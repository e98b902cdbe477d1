import BouncerDomain

/// A store whose repositories are SQL over an `SQLConnection`: each backend gives its reads (one
/// snapshot each) and its group-committed writes, and the repositories written once on top of
/// these serve both SQLite and PostgreSQL. A backend keeps its own version of what it does
/// differently, or faster (SQLite's send path and channel pages).
public protocol SQLStore: Sendable {
    associatedtype Connection: SQLConnection
    /// Runs `work` in one read transaction.
    func read<T: Sendable>(_ work: @escaping @Sendable (Connection) throws -> T) async throws -> T
    /// Runs `work` in the next group commit and returns once that has committed.
    func write<T: Sendable>(_ work: @escaping @Sendable (Connection) throws -> T) async throws -> T
    /// Runs `work` in a transaction of its own, apart from the send path's groups: for background
    /// work that locks rows other instances lock too (webhook deliveries), whose waits must not
    /// hold sends up (or, with a send's event in the same transaction, deadlock with them).
    func writeApart<T: Sendable>(_ work: @escaping @Sendable (Connection) throws -> T) async throws -> T
    /// A connection of the caller's own, for long background reads on a thread the caller
    /// chooses; closed when released.
    func openConnection() throws -> Connection
    /// The schema version this release's migrations end at.
    var schemaVersion: Int { get }
    /// Every rule with what matching needs, for the engine (a backend may read them faster).
    static func readAllRules(_ connection: Connection) throws -> [StoredRule]
}


