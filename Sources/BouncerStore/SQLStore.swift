import Synchronization

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
    /// Numbers the changes whose results are swapped into memory, in commit order.
    var changeSequence: ChangeSequence { get }
    /// The schema version this release's migrations end at.
    var schemaVersion: Int { get }
    /// Every rule with what matching needs, for the engine (a backend may read them faster).
    static func readAllRules(_ connection: Connection) throws -> [StoredRule]
}

/// A counter advanced only on the writer's queue.
public final class ChangeSequence: Sendable {
    private let value = Atomic<UInt64>(0)

    public init() {}

    public func next() -> UInt64 { value.add(1, ordering: .relaxed).newValue }
    public var current: UInt64 { value.load(ordering: .relaxed) }
}

extension SQLiteStore: SQLStore {
    public func read<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await readers.read(work)
    }

    public func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.write(work)
    }
}

/// An error of either store. `isUnavailable`: the store cannot serve now (a full or failing disk,
/// the database server down or restarting), and a client should hear 503 `store_unavailable`
/// and try again, not an error of its own.
public protocol StoreFailure: Error, CustomStringConvertible {
    var isUnavailable: Bool { get }
}

extension DatabaseError: StoreFailure {}

/// What the service holds a store by, whichever it is: every repository, and closing.
public protocol ServiceStore: MessageRepository, FlagRepository, RuleRepository, ModerationRepository, SettingsRepository,
    LocalizationOverrideRepository, StoreHealthRepository, ServiceMetadataRepository {
    /// Where the store is, for logs: a file's path, or a server's host and database (never a password).
    var location: String { get }
    /// Finishes the queued writes and closes every connection.
    func close()
}

extension SQLiteStore: ServiceStore {
    public var location: String { path }
}
