import BouncerStore
import CSQLite
import Dispatch

/// Decides when the writer copies the write-ahead log into the database file, and keeps the log
/// from growing without bound.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the log past its threshold:
/// the writes of that group wait for the pages to be copied and the database file to be synced
/// before their callers hear that they are committed. This replaces it, on the writer's
/// connection, with the same passive checkpoint, run once the group's callers have been
/// resumed: only the writes queued behind it wait.
///
/// A passive checkpoint copies what no reader still needs, but the log only starts over from its
/// beginning once no reader is using it: with reads that overlap without a pause, it grows for as
/// long as they go on. Past `restartFrames`, the checkpoint is a RESTART instead, which waits (up
/// to `restartWait`, so writes queued behind it are held up a second at most, and only when the
/// log is already large) for the readers of the moment to finish; readers that start meanwhile
/// read the database file, and the next commit writes the log from its start again.
/// `journal_size_limit` then cuts the file back.
final class LogCheckpointer {
    /// Log frames that make a checkpoint due. SQLite's default is 1,000; the writes queued behind
    /// a checkpoint wait for all of it, so shorter ones, more often, keep the slowest sends
    /// faster. Measured on the send benchmark, against 1,000: p99 1-2 ms lower at 300, for the
    /// same throughput; 100 and 200 were no better than 300.
    static let defaultThreshold: Int32 = 300
    /// Frames past which a checkpoint waits for readers so the log can start over (about 16 MiB
    /// of 4 KiB pages).
    static let defaultRestartFrames = StoreConfiguration().logRestartFrames
    static let restartWait: Int32 = 1_000  // milliseconds
    /// What `journal_size_limit` keeps of a log that started over.
    static let logSizeLimit = 16 * 1024 * 1024

    /// What the last checkpoint found: frames in the log, and frames copied into the database.
    struct Outcome: Sendable {
        var duration: Duration
        var logFrames: Int32
        var checkpointedFrames: Int32
        var restarted: Bool
    }

    /// Frames in the log after the last commit, as SQLite's WAL hook reports them.
    private let frames: UncheckedBox<Int32>
    let threshold: Int32
    let restartFrames: Int32
    private let busyTimeout: Int32

    /// Installs the hook on `connection`, which must not outlive this object (the writer owns
    /// both, and closes the connection first). `queue`: the one the connection is used on, where
    /// SQLite calls the hook.
    init(connection: SQLiteDatabase, threshold: Int32 = defaultThreshold, restartFrames: Int32 = defaultRestartFrames,
         busyTimeoutMilliseconds: Int32, queue: DispatchQueue? = nil) {
        frames = UncheckedBox(0, confinedTo: queue)
        self.threshold = threshold
        self.restartFrames = restartFrames
        self.busyTimeout = busyTimeoutMilliseconds
        try? connection.execute("PRAGMA journal_size_limit = \(Self.logSizeLimit)")
        // Replaces SQLite's automatic checkpoint, which is itself a WAL hook.
        sqlite3_wal_hook(connection.handle, { context, _, _, frames in
            Unmanaged<UncheckedBox<Int32>>.fromOpaque(context!).takeUnretainedValue().value = frames
            return SQLITE_OK
        }, Unmanaged.passUnretained(frames).toOpaque())
    }

    /// Runs a checkpoint when the last commit took the log to the threshold; nil when none was
    /// due. A checkpoint that fails leaves the log as it was, to be copied after a later commit,
    /// as SQLite's own would.
    func checkpointIfDue(_ connection: SQLiteDatabase) -> Outcome? {
        let logged = frames.value
        guard logged >= threshold else { return nil }
        frames.value = 0
        let started = ContinuousClock.now
        var logFrames: Int32 = 0, checkpointed: Int32 = 0
        let restart = logged >= restartFrames
        if restart {
            // The writes queued behind this wait for it: a short wait, tried again later if busy.
            sqlite3_busy_timeout(connection.handle, Self.restartWait)
            _ = sqlite3_wal_checkpoint_v2(connection.handle, "main", SQLITE_CHECKPOINT_RESTART, &logFrames, &checkpointed)
            sqlite3_busy_timeout(connection.handle, busyTimeout)
        } else {
            _ = sqlite3_wal_checkpoint_v2(connection.handle, "main", SQLITE_CHECKPOINT_PASSIVE, &logFrames, &checkpointed)
        }
        return Outcome(duration: ContinuousClock.now - started, logFrames: logFrames, checkpointedFrames: checkpointed,
                       restarted: restart && logFrames >= 0 && checkpointed == logFrames)
    }
}
