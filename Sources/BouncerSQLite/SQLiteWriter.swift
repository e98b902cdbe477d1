import BouncerStore
import Dispatch
import Locking

/// The one connection that writes, on its own serial queue, with group commit: writes that arrive
/// while a commit is in progress are gathered and committed together in the next transaction.
/// Each write runs in its own savepoint, so one failing write does not undo the others of its
/// group, and each caller is resumed only after the commit that holds its write has returned.
/// Nothing is acknowledged before it is durable. A write that fails for the storage's sake (full
/// disk, I/O error, no memory, damage), or whose changes cannot be undone, fails its whole group
/// (`SQLiteError.failsTransaction`): what the connection holds may then not be what
/// SQLite believes, and committing the rest would make it durable.
public final class SQLiteWriter: Sendable {
    /// Marks the writers' queues, so that work that must run on one can check it does.
    private static let writerKey = DispatchSpecificKey<Void>()

    /// Whether the caller runs on a writer's queue.
    static var isOnWriterQueue: Bool { DispatchQueue.getSpecific(key: writerKey) != nil }

    private let connection: UncheckedBox<SQLiteDatabase>
    private let dispatchQueue: DispatchQueue
    private let pending = PendingWrites<any GroupWrite>()
    private let maxBatchSize: Int
    private let onBatch: @Sendable (CommitReport) -> Void
    /// Only touched on the writer's queue.
    private let checkpointer: UncheckedBox<LogCheckpointer>
    /// Only touched on the writer's queue.
    private let hooks: UncheckedBox<[any GroupCommitHook]>

    init(connection: SQLiteDatabase, maxBatchSize: Int, hooks: [any GroupCommitHook] = [], logRestartFrames: Int32 = LogCheckpointer.defaultRestartFrames,
         busyTimeoutMilliseconds: Int32, onBatch: @escaping @Sendable (CommitReport) -> Void) {
        let queue = DispatchQueue(label: "bouncer.store.writer", qos: .userInitiated)
        queue.setSpecific(key: Self.writerKey, value: ())
        dispatchQueue = queue
        checkpointer = UncheckedBox(LogCheckpointer(connection: connection, restartFrames: logRestartFrames,
                                                    busyTimeoutMilliseconds: busyTimeoutMilliseconds, queue: queue), confinedTo: queue)
        self.hooks = UncheckedBox(hooks, confinedTo: queue)
        self.connection = UncheckedBox(connection, confinedTo: queue)
        self.maxBatchSize = maxBatchSize
        self.onBatch = onBatch
    }

    /// How many writes wait for the next group.
    var queuedWrites: Int { pending.count }

    /// Runs `work` in the next group transaction and returns its result once that is committed.
    public func write<T: Sendable>(_ work: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            write(work) { continuation.resume(with: $0) }
        }
    }

    /// Runs `work` in the next group transaction and calls `completion` on the writer's queue once
    /// that is committed, with the write's result or the commit's error. For callers that are not
    /// async, so that waiting for the commit costs no task.
    ///
    /// `oneStatement`: `work` changes the database with one statement at most. SQLite undoes a
    /// failed statement by itself, so such a write needs no savepoint of its own: the send path's
    /// most common write saves the two statements a savepoint costs.
    public func write<T: Sendable>(oneStatement: Bool = false, _ work: @escaping @Sendable (SQLiteDatabase) throws -> T,
                                   completion: @escaping @Sendable (Result<T, any Error>) -> Void) {
        enqueue(ClosureWrite(oneStatement: oneStatement, work: work, completion: completion))
    }

    /// Queues `write` for the next group: run there, then finished once the group's commit is
    /// known (on the writer's queue), or finished at once with `StoreError.closed` after `close`.
    func enqueue(_ write: any GroupWrite) {
        let accepted = pending.add(write) { dispatchQueue.async { self.drain() } }
        if !accepted { write.finish(StoreError.closed) }
    }

    /// Runs `work` on the writer's queue outside of any group, for maintenance (backups,
    /// checkpoints). It waits for the writes queued before it.
    public func exclusive<T: Sendable>(_ work: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            dispatchQueue.async {
                continuation.resume(with: Result { try work(self.connection.value) })
            }
        }
    }

    private func drain() {
        let database = connection.value
        while true {
            let batch = pending.nextGroup(limit: maxBatchSize)
            if batch.isEmpty { return }
            let started = ContinuousClock.now
            var commitError: SQLiteError?
            var hookFailures: [CommitReport.HookFailure] = []
            var lastWriteError: SQLiteError?
            do throws(SQLiteError) {
                try database.execute(.beginImmediate)
                for item in batch {
                    // A full disk, an I/O error or a lack of memory can make SQLite roll the whole
                    // transaction back under one write. The group has failed then, and nothing may
                    // run after it: outside a transaction, each statement (or a savepoint's
                    // release) would commit on its own, stored though reported as failed.
                    guard database.isInTransaction else { throw SQLiteError.groupRolledBack(after: lastWriteError) }
                    if let writeError = item.run(database) {
                        lastWriteError = writeError
                        if writeError.failsTransaction {
                            throw database.isInTransaction ? writeError : SQLiteError.groupRolledBack(after: writeError)
                        }
                    }
                }
                guard database.isInTransaction else { throw SQLiteError.groupRolledBack(after: lastWriteError) }
                for hook in hooks.value {
                    guard let error = hook.beforeCommit(writes: batch.count, database) else { continue }
                    hookFailures.append(CommitReport.HookFailure(hook: hook.name, error: error))
                    guard database.isInTransaction else { throw SQLiteError.groupRolledBack(after: error) }
                }
                try database.execute(.commit)
            } catch {
                commitError = error
                if database.isInTransaction { try? database.execute(.rollback) }
            }
            for item in batch { item.finish(commitError) }
            let duration = ContinuousClock.now - started
            // After the callers are resumed, so that only the writes queued since wait for it.
            let checkpoint = checkpointer.value.checkpointIfDue(database)
            onBatch(CommitReport(size: batch.count, duration: duration, error: commitError,
                                 checkpoint: checkpoint.map { CommitReport.Checkpoint(duration: $0.duration, logFrames: Int($0.logFrames),
                                                                                      checkpointedFrames: Int($0.checkpointedFrames)) },
                                 hookFailures: hookFailures))
        }
    }

    /// Refuses new writes, waits for queued ones to commit, and closes the connection.
    func close() {
        pending.close()
        dispatchQueue.sync {
            drain()
            connection.value.close()
        }
    }
}

/// A write waiting for its group commit, run and then finished on the writer's queue. A class,
/// so that one object carries a write's work, its caller and its result: the send path's writes
/// are one allocation each.
protocol GroupWrite: AnyObject, Sendable {
    /// Runs the write (with `SQLiteDatabase.runWrite`) and keeps its result until the commit is known;
    /// returns the write's database error, if it met one.
    func run(_ database: SQLiteDatabase) -> SQLiteError?
    /// Resumes the caller: with the write's own result, or with `commitError` when the group
    /// failed (or the writer was closed before it ran).
    func finish(_ commitError: (any Error)?)
}

extension SQLiteDatabase {
    /// Runs one write of a group: in a savepoint of its own, so that its failure undoes it alone,
    /// unless it changes the database with one statement at most (SQLite undoes a failed
    /// statement by itself, and a savepoint costs two statements more).
    func runWrite<T>(oneStatement: Bool, _ work: (SQLiteDatabase) throws -> T) -> Result<T, any Error> {
        Result { oneStatement ? try work(self) : try inSavepoint(work) }
    }
}

extension Result {
    /// The database error a failed write met, for the group to judge.
    var databaseError: SQLiteError? {
        guard case .failure(let error) = self else { return nil }
        return error as? SQLiteError
    }
}

/// A write given as closures.
private final class ClosureWrite<T: Sendable>: GroupWrite, @unchecked Sendable {
    private let oneStatement: Bool
    private let work: @Sendable (SQLiteDatabase) throws -> T
    private let completion: @Sendable (Result<T, any Error>) -> Void
    /// Set by `run`, read by `finish`: both on the writer's queue, one after the other (the
    /// unchecked `Sendable` rests on that), and never by the thread that queued the write.
    private var result: Result<T, any Error>?

    init(oneStatement: Bool, work: @escaping @Sendable (SQLiteDatabase) throws -> T,
         completion: @escaping @Sendable (Result<T, any Error>) -> Void) {
        self.oneStatement = oneStatement
        self.work = work
        self.completion = completion
    }

    func run(_ database: SQLiteDatabase) -> SQLiteError? {
        let outcome = database.runWrite(oneStatement: oneStatement, work)
        result = outcome
        return outcome.databaseError
    }

    func finish(_ commitError: (any Error)?) {
        completion(commitError.map { .failure($0) } ?? result ?? .failure(StoreError.closed))
    }
}
