/// How a store opens: its readers and its groups of writes, both stores; and, for SQLite alone,
/// how its file is synced, locked, indexed and checkpointed (PostgreSQL has its own settings).
public struct StoreConfiguration: Sendable, Equatable {
    /// `FULL` (the default) syncs the WAL on every commit: nothing acknowledged can be lost to a
    /// power cut. `NORMAL` may lose the last commits on power loss, never on a process crash.
    public enum Synchronous: String, Sendable, CaseIterable {
        case full = "FULL"
        case normal = "NORMAL"
    }

    public var synchronous: Synchronous = .full
    /// How long a connection waits for a lock held by another process before failing.
    public var busyTimeoutMilliseconds = 5_000
    /// Read-only connections in the reader pool.
    public var readerCount = 4
    /// Most writes grouped into one transaction.
    public var maxBatchSize = 512
    /// Writes between two copies of new messages into `channel_messages` (ChannelIndex).
    public var channelIndexBatchSize = 512
    /// The VFS under the writer's WAL batching VFS (nil: SQLite's default). Tests put a
    /// fault-injecting VFS there.
    package var writerBaseVFS: String?
    /// Log frames past which a checkpoint waits for readers so the log can start over.
    package var logRestartFrames: Int32 = 4_000

    public init() {}
}
