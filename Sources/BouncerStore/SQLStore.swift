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

extension SQLiteStore: SQLStore {
    public func read<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await readers.read(work)
    }

    public func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.write(work)
    }

    public func openConnection() throws -> Database {
        try Database(path: path, mode: .readOnly)
    }

    /// One process writes a SQLite file, and takes no row locks: the groups serve.
    public func writeApart<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.write(work)
    }
}

/// An error of either store. `isUnavailable`: the store cannot serve now (a full or failing disk,
/// the database server down or restarting), and a client should hear 503 `store_unavailable`
/// and try again, not an error of its own. `isConflict`: the write met another instance's
/// (a serialization failure or a deadlock) again and again, past the store's own retries; a
/// client should hear 503 too, since the same request can succeed a moment later.
public protocol StoreFailure: Error, CustomStringConvertible {
    var isUnavailable: Bool { get }
    var isConflict: Bool { get }
}

extension StoreFailure {
    public var isConflict: Bool { false }
}

extension DatabaseError: StoreFailure {}

/// What the service holds a store by, whichever it is: every repository, and closing.
public protocol ServiceStore: MessageRepository, FlagRepository, RuleRepository, ModerationRepository, SettingsRepository,
    LocalizationOverrideRepository, StoreHealthRepository, ServiceMetadataRepository, ChangeVersionRepository, EventRepository,
    WebhookRepository, RuleStatsRepository, MessageHistoryRepository, MatrixRoomRepository, AppealRepository, StrikeRepository {
    /// Where the store is, for logs: a file's path, or a server's host and database (never a password).
    var location: String { get }
    /// Starts calling `changed` soon after any instance commits a change of shared state (a
    /// topic's version advanced), until the watch returned is stopped. Nil when no other instance
    /// can share the store: then every change is made, and put in force, by this one.
    func watchChanges(_ changed: @escaping @Sendable () -> Void) -> (any ChangeWatch)?
    /// Send-rate buckets every instance counts in; nil when the store is one instance's.
    var sharedSendRates: (any SharedSendRates)? { get }
    /// Where rate rules keep senders' recent messages when instances share the store; nil when
    /// the store is one instance's (it keeps them in memory).
    var sharedRateLedger: (any RateLedger)? { get }
    /// Writes a consistent copy of the store to `destination` (which must not exist): a file
    /// whose name ends with `backupExtension`.
    func backup(to destination: String) throws -> Backup.Result
    var backupExtension: String { get }
    /// Finishes the queued writes and closes every connection.
    func close()
}

/// A running `watchChanges`.
public protocol ChangeWatch: Sendable {
    func stop()
}

extension SQLiteStore: ServiceStore {
    public var location: String { path }

    /// A SQLite file is one instance's.
    public func watchChanges(_ changed: @escaping @Sendable () -> Void) -> (any ChangeWatch)? { nil }
    public var sharedSendRates: (any SharedSendRates)? { nil }
    public var sharedRateLedger: (any RateLedger)? { nil }

    public func backup(to destination: String) throws -> Backup.Result { try Backup.copy(storeAt: path, to: destination) }
    public var backupExtension: String { "sqlite3" }
}
