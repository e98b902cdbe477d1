import BouncerDomain
import BouncerStore

/// The store on PostgreSQL: a writer with group commit, readers, and the migrations of
/// `migrations/postgres/` applied at open. Several instances may share one database. The
/// repositories written once for both stores (`SQLStore`) run on it unchanged.
public final class PostgresStore: SQLStore {
    public let url: String
    /// Where what needs a session of its own connects, which a pooler in transaction mode does
    /// not give: the listener for changes (`LISTEN`) and backups (`pg_dump`, whose settings are
    /// the session's). nil is `url`.
    public let listenURL: String?
    public let writer: PostgresWriter
    /// Transactions of one write each, on a connection of their own (`writeApart`). Their commits
    /// do not wait for the disk: what they record (webhook deliveries taken and attempted, the
    /// events fanned out) is done again if a crash of the database loses it, which at-least-once
    /// delivery allows, and the send path's commits do not queue behind theirs.
    let backgroundWriter: PostgresWriter
    public let readers: PostgresReaderPool
    public let schemaVersion: Int
    let sendRates: PostgresSendRates
    let rateLedger: PostgresRateLedger

    /// Connects to `url`, applies `migrations` (under an advisory lock, so instances starting at
    /// once apply each migration once), and opens the writer and the readers.
    public init(url: String, listenURL: String? = nil, configuration: StoreConfiguration = StoreConfiguration(), migrations: [Migration],
                onCommit: @escaping @Sendable (CommitReport) -> Void = { _ in }) throws {
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        try PostgresMigrator(migrations: migrations).migrate(connection)
        self.url = url
        self.listenURL = listenURL
        schemaVersion = migrations.last?.version ?? 0
        writer = PostgresWriter(url: url, maxBatchSize: configuration.maxBatchSize, combinedInsert: Self.messagesInsert,
                                commitOrderLock: Self.commitOrderLock, preparesStatements: listenURL == nil, onGroup: onCommit)
        backgroundWriter = PostgresWriter(url: url, maxBatchSize: 1, synchronousCommit: false)
        readers = PostgresReaderPool(url: url, count: configuration.readerCount)
        sendRates = PostgresSendRates(url: url)
        rateLedger = PostgresRateLedger(url: url)
    }

    /// The advisory lock of every instance's commit groups (`PostgresWriter`'s commit order):
    /// "bouncerm" in ASCII, apart from the migrations' key.
    static let commitOrderLock: Int64 = 0x626F_756E_6365_726D

    public func read<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await readers.read(work)
    }

    public func write<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await writer.write(work)
    }

    public func writeApart<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await backgroundWriter.write(work)
    }

    public func close() {
        sendRates.close()
        rateLedger.close()
        readers.close()
        writer.close()
        backgroundWriter.close()
    }
}

extension PostgresStore: ServiceStore {
    /// The server and database, without the user or password.
    public var location: String { PostgresStore.redacted(url) }

    public var sharedSendRates: (any SharedSendRates)? { sendRates }
    public var sharedRateLedger: (any RateLedger)? { rateLedger }

    public func openConnection() throws -> PostgresConnection {
        try PostgresConnection(url: url)
    }

    public static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return "postgres" }
        var rest = url[scheme.upperBound...]
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if let query = rest.firstIndex(of: "?") { rest = rest[..<query] }
        return "postgres://" + rest
    }
}

extension PostgresError: StoreFailure {}
