import BouncerStore
import CSQLite
import CSQLiteWALBatching
import Foundation
import Synchronization

/// The SQLite store: one writer with group commit and a pool of readers on one WAL-mode file.
/// Opening it applies pending migrations first.
public final class SQLiteStore: Sendable {
    public let path: String
    public let writer: SQLiteWriter
    public let readers: SQLiteReaderPool
    public let schemaVersion: Int

    /// Opens (creating if needed) the store at `path` and applies `migrations`.
    public init(path: String, configuration: StoreConfiguration = StoreConfiguration(), migrations: [Migration],
                onCommit: @escaping @Sendable (CommitReport) -> Void = { _ in }) throws {
        let writerConnection = try Self.openWriter(path: path, configuration: configuration)
        try Migrator(migrations: migrations).migrate(writerConnection)
        var hooks: [any GroupCommitHook] = []
        if try ChannelIndex.exists(in: writerConnection) {
            // Messages written into the file by other means, or left by a batch that failed, are
            // copied now, so that no reader scans more than about a batch of rows. Readers are
            // right without it: a copy that fails here is the first group's to try again, and
            // that group reports its error.
            let copied = (try? writerConnection.inTransaction { database in try ChannelIndex.catchUp(database) }) != nil
            hooks.append(ChannelIndex(batchSize: configuration.channelIndexBatchSize, due: !copied))
        }
        var readerConnections: [SQLiteDatabase] = []
        for _ in 0..<max(1, configuration.readerCount) {
            let reader = try SQLiteDatabase(path: path, mode: .readOnly)
            try reader.execute("PRAGMA busy_timeout = \(configuration.busyTimeoutMilliseconds)")
            try reader.execute("PRAGMA query_only = ON")
            // A moderator's page (the review queue's first: 50 messages and their 453 flags on
            // the benchmark's store) reads about 1.5 MB of pages. In SQLite's default 2 MB cache
            // that thrashed: every request read every page from the OS again. Each reader may
            // keep 8 MB, filled only as pages are read.
            try reader.execute("PRAGMA cache_size = -\(Self.readerCacheKiB)")
            readerConnections.append(reader)
        }
        self.path = path
        self.schemaVersion = migrations.last?.version ?? 0
        self.writer = SQLiteWriter(connection: writerConnection, maxBatchSize: configuration.maxBatchSize,
                                     hooks: hooks, logRestartFrames: configuration.logRestartFrames,
                                     busyTimeoutMilliseconds: Int32(configuration.busyTimeoutMilliseconds), onBatch: onCommit)
        self.readers = SQLiteReaderPool(connections: readerConnections)
    }

    /// Each reader's page cache, in KiB.
    static let readerCacheKiB = 8 * 1024

    /// The writer connection, configured: WAL, the chosen durability, foreign keys, busy timeout.
    public static func openWriter(path: String, configuration: StoreConfiguration) throws -> SQLiteDatabase {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = try SQLiteDatabase(path: path, mode: .readWrite, vfs: try logVFS(over: configuration.writerBaseVFS))
        try database.execute("PRAGMA busy_timeout = \(configuration.busyTimeoutMilliseconds)")
        let mode = try database.fetchValue("PRAGMA journal_mode = WAL", as: String.self)
        guard mode?.lowercased() == "wal" else {
            throw SQLiteError(resultCode: 1, message: "could not switch the store to WAL mode (got \(mode ?? "nothing"))")
        }
        try database.execute("PRAGMA synchronous = \(configuration.synchronous.rawValue)")
        try database.execute("PRAGMA foreign_keys = ON")
        return database
    }

    /// The VFS the writer opens its file with: it hands each commit's log frames to the file in one
    /// write instead of two a page (see CSQLiteWALBatching for why that is safe, whatever the
    /// `synchronous` setting), over `base` (SQLite's default VFS when nil).
    static func logVFS(over base: String?) throws -> String {
        let name = base.map { "\(WAL_BATCHING_VFS_NAME)-over-\($0)" } ?? WAL_BATCHING_VFS_NAME
        let code = base.map { wal_batching_register_over($0, name) } ?? wal_batching_register()
        guard code == SQLITE_OK else {
            throw SQLiteError(resultCode: code, message: "could not register the WAL batching VFS")
        }
        return name
    }

    /// Waits for queued writes to commit, then closes every connection. The last close
    /// checkpoints the WAL into the main file.
    public func close() {
        readers.close()
        writer.close()
    }
}
