import BouncerStore
import Glibc
import Locking

/// The connection that writes, with group commit as the SQLite store's `DatabaseWriter` has it:
/// writes that arrive while a group commits are gathered into the next transaction, and each
/// caller is resumed only after the COMMIT that holds its write has returned. Nothing is
/// acknowledged before it is durable. A write that fails because the database is unavailable
/// fails its whole group.
///
/// A group of new rows (sends) is one statement between BEGIN and COMMIT, all sent in one round
/// trip. Other groups run write by write, a write in a savepoint of its own when it may fail
/// after changing something (so one failing write does not undo the others); a group that fails
/// without savepoints runs again with them.
///
/// Several instances may write to one database at once: what must hold across them (one open flag
/// per user and message, a client id used once) is held by constraints and row locks inside these
/// transactions, never by anything in this process.
public final class PostgresWriter: Sendable {
    private struct WorkItem: Sendable {
        /// Runs the write (in a savepoint when told, or when it always needs one) and keeps its
        /// result until the commit is known; returns an error that must fail or retry the group.
        let run: @Sendable (PostgresConnection, _ inSavepoint: Bool) -> PostgresError?
        let finish: @Sendable (PostgresError?) -> Void
        /// A new row the group may insert together with its neighbours' (`combinedInsert`),
        /// and what to keep as the write's result when it did.
        var row: CombinedInsert.Row?
        var rowInserted: (@Sendable (Int64) -> Void)?
    }

    private let session: PostgresSession
    private let pending = PendingWrites<WorkItem>()
    private let maxBatchSize: Int
    private let onGroup: @Sendable (CommitReport) -> Void
    private let combinedInsert: CombinedInsert?
    /// What opens a group's transaction: BEGIN, then the transaction's settings and lock. Each
    /// is its own statement, as a pipeline sends them; `begin` is the same as one script.
    private let opening: [String]
    private let begin: String
    /// Whether a group's round trip runs prepared statements (parsed and planned once a
    /// connection). Off for good once the server lost one (a pooler between): see
    /// `PostgresConnection.pipeline(_:prepared:)`.
    private let preparesStatements: Locked<Bool>

    /// `synchronousCommit: false`: commits return before the log reaches the disk (a crash of
    /// the database may lose the last few), for writes that are safe to lose and do again.
    ///
    /// `commitOrderLock`: every group first takes this advisory lock, held until its commit is
    /// visible, so the groups of every writer that takes it (every instance's) commit one after
    /// another, in the order in which they were given their rows' sequences: a reader that has
    /// seen a message has seen every message before it. Without the lock a sequence handed out
    /// before a slower transaction of another instance committed is a gap that a reader paging
    /// newest first steps over for good. The lock makes the time from BEGIN to COMMIT every
    /// instance's to wait for, which prepared statements shorten.
    ///
    /// `preparesStatements`: false when `url` is a pooler in transaction mode, whose server
    /// sessions change from one transaction to the next.
    init(url: String, maxBatchSize: Int, combinedInsert: CombinedInsert? = nil, synchronousCommit: Bool = true,
         commitOrderLock: Int64? = nil, preparesStatements: Bool = true,
         onGroup: @escaping @Sendable (CommitReport) -> Void = { _ in }) {
        session = PostgresSession(url: url, label: "bouncer.postgres.writer")
        // Set for each transaction, never for the session: behind a pooler in transaction mode a
        // session's setting stays on the server connection and reaches other clients'
        // transactions, durable writes among them.
        var opening = ["BEGIN"]
        if !synchronousCommit { opening.append("SET LOCAL synchronous_commit = off") }
        if let commitOrderLock { opening.append("SELECT pg_advisory_xact_lock(\(commitOrderLock))") }
        self.opening = opening
        begin = opening.joined(separator: "; ")
        self.preparesStatements = Locked(preparesStatements)
        self.maxBatchSize = max(1, maxBatchSize)
        self.combinedInsert = combinedInsert
        self.onGroup = onGroup
    }

    /// Runs `work` in the next group transaction and returns its result once that is committed.
    public func write<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            write(work) { continuation.resume(with: $0) }
        }
    }

    /// As `write`, calling `completion` on the writer's queue once the group has committed.
    ///
    /// `needsSavepoint: false` is for a write that fails only through the database (never
    /// throws after changing something): it runs without a savepoint's two round trips, and
    /// should it fail, the group is rolled back and run again with every write in a savepoint.
    ///
    /// `combinable`: the write is a new row of the writer's `combinedInsert` table (and its child
    /// rows), which a group inserts with its neighbours' in one statement, keeping
    /// `made(returned value)` as the result; `work` runs only when the row's key was taken, or
    /// when the group must run carefully.
    public func write<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) throws -> T, needsSavepoint: Bool = true,
                                   combinable: (row: CombinedInsert.Row, made: @Sendable (Int64) -> T)? = nil,
                                   completion: @escaping @Sendable (Result<T, any Error>) -> Void) {
        let result = Locked<Result<T, any Error>?>(nil)
        var item = WorkItem(
            run: { connection, careful in
                let outcome = Result { careful || needsSavepoint ? try Self.inSavepoint(connection, work) : try work(connection) }
                result.withLock { $0 = outcome }
                guard case .failure(let error) = outcome, let failure = error as? PostgresError,
                      failure.connectionLost || failure.isUnavailable || failure.isSerializationFailure else { return nil }
                return failure
            },
            finish: { commitError in
                if let commitError {
                    completion(.failure(commitError))
                } else {
                    completion(result.withLock { $0 } ?? .failure(PostgresError(sqlState: nil, message: "the store is closed")))
                }
            })
        if let combinable, combinedInsert != nil {
            item.row = combinable.row
            item.rowInserted = { value in result.withLock { $0 = .success(combinable.made(value)) } }
        }
        let accepted = pending.add(item) { session.queue.async { self.drain() } }
        if !accepted { completion(.failure(PostgresError(sqlState: nil, message: "the store is closed"))) }
    }

    private static func inSavepoint<T>(_ connection: PostgresConnection, _ work: (PostgresConnection) throws -> T) throws -> T {
        try connection.executeScript("SAVEPOINT write")
        do {
            let value = try work(connection)
            try connection.executeScript("RELEASE SAVEPOINT write")
            return value
        } catch {
            if connection.isOpen { try connection.executeScript("ROLLBACK TO SAVEPOINT write; RELEASE SAVEPOINT write") }
            throw error
        }
    }

    private func drain() {
        while true {
            let batch = pending.nextGroup(limit: maxBatchSize)
            if batch.isEmpty { return }
            let started = ContinuousClock.now
            let commitError = commitAndFinish(batch)
            onGroup(CommitReport(size: batch.count, duration: ContinuousClock.now - started, error: commitError))
        }
    }

    /// Commits `batch` and tells each write how it ended; returns the group's failure, if any.
    /// A group of new rows only (the usual one: sends) goes in one round trip; any other runs
    /// write by write.
    private func commitAndFinish(_ batch: [WorkItem]) -> PostgresError? {
        var careful = false
        if let combinedInsert, batch.allSatisfy({ $0.row != nil }) {
            switch commitInOneRoundTrip(batch, combinedInsert) {
            case .committed(let leftovers):
                // Writes whose key was taken (or given twice) find out why on their own path,
                // in a transaction of their own: the others' commit is already theirs.
                let leftoverError = leftovers.isEmpty ? nil : commit(leftovers.map { batch[$0] }, careful: false)
                let left = Set(leftovers)
                for (index, item) in batch.enumerated() { item.finish(left.contains(index) ? leftoverError : nil) }
                return leftoverError
            case .failed(let error):
                for item in batch { item.finish(error) }
                return error
            case .runCarefully:
                careful = true
            case .runAgain:
                Self.pauseAfterConflict(1)
            }
        }
        let commitError = commit(batch, careful: careful)
        for item in batch { item.finish(commitError) }
        return commitError
    }

    private enum RoundTripOutcome {
        /// Committed; the indexes of the writes whose rows were not inserted.
        case committed(leftovers: [Int])
        case failed(PostgresError)
        /// A row was refused: the group runs again write by write, each in a savepoint.
        case runCarefully
        /// A conflict with another instance: the group runs again.
        case runAgain
    }

    /// BEGIN, the group's rows with their children and events, and COMMIT, sent at once (libpq's
    /// pipeline mode): one round trip a group, and no savepoint, since such a write fails only
    /// through the database.
    private func commitInOneRoundTrip(_ batch: [WorkItem], _ combinedInsert: CombinedInsert) -> RoundTripOutcome {
        let rows = CombinedInsert.firstOfEachKey(batch.compactMap(\.row))
        let prepared = preparesStatements.withLock { $0 }
        do {
            let inserted = try session.runHere { connection in
                let statements = opening.map { (sql: $0, arguments: [DatabaseValue]()) }
                    + [combinedInsert.statement(rows), (sql: "COMMIT", arguments: [])]
                return try combinedInsert.inserted(try connection.pipeline(statements, prepared: prepared)[opening.count])
            }
            var claimed = Set<String>()
            var leftovers: [Int] = []
            for (index, item) in batch.enumerated() {
                if let key = item.row?.key, let value = inserted[key], claimed.insert(key).inserted {
                    item.rowInserted?(value)
                } else {
                    leftovers.append(index)
                }
            }
            return .committed(leftovers: leftovers)
        } catch {
            _ = try? session.runHere { connection in
                if connection.isInTransaction { try connection.executeScript("ROLLBACK") }
            }
            let failure = error as? PostgresError ?? PostgresError(sqlState: nil, message: String(describing: error))
            if failure.isSerializationFailure { return .runAgain }
            if failure.isUnavailable { return .failed(failure) }
            if prepared && failure.isMissingPreparedStatement {
                preparesStatements.withLock { $0 = false }
                return .runAgain
            }
            return .runCarefully
        }
    }

    /// Runs and commits one group; nil when it committed. A group that a savepoint-free write
    /// left aborted runs again, carefully (every write in a savepoint); one that lost a
    /// serialization or deadlock conflict with another instance runs again as it was, a few times.
    private func commit(_ batch: [WorkItem], careful startCarefully: Bool) -> PostgresError? {
        var careful = startCarefully
        var conflicts = 0
        while true {
            do {
                try session.runHere { connection in
                    try connection.executeScript(begin)
                    func runAlone(_ item: WorkItem) throws {
                        if let error = item.run(connection, careful) { throw error }
                        // A write that failed without a savepoint (or failed its savepoint's
                        // undo, or ended the transaction) leaves nothing to commit: a COMMIT
                        // would be answered with a ROLLBACK.
                        guard connection.isInHealthyTransaction else {
                            if careful { throw Self.groupAborted }
                            throw RunCarefully()
                        }
                    }
                    var index = 0
                    while index < batch.count {
                        guard !careful, let combinedInsert, batch[index].row != nil else {
                            try runAlone(batch[index])
                            index += 1
                            continue
                        }
                        let end = batch[index...].firstIndex { $0.row == nil } ?? batch.count
                        let run = batch[index..<end]
                        let inserted: [String: Int64]
                        do {
                            inserted = try combinedInsert.insert(run.compactMap(\.row), connection)
                        } catch let error as PostgresError where !error.isUnavailable && !error.isSerializationFailure {
                            throw RunCarefully()
                        }
                        // A key given twice in the group was inserted for its first write; the
                        // others go their own way (a retry of it, or a conflict).
                        var claimed = Set<String>()
                        for item in run {
                            if let key = item.row?.key, let value = inserted[key], claimed.insert(key).inserted {
                                item.rowInserted?(value)
                            } else {
                                try runAlone(item)
                            }
                        }
                        index = end
                    }
                    try connection.executeScript("COMMIT")
                }
                return nil
            } catch {
                _ = try? session.runHere { connection in
                    if connection.isInTransaction { try connection.executeScript("ROLLBACK") }
                }
                let failure = error as? PostgresError ?? PostgresError(sqlState: nil, message: String(describing: error))
                if error is RunCarefully {
                    careful = true
                } else if failure.isSerializationFailure && conflicts < Self.conflictRetries {
                    conflicts += 1
                    Self.pauseAfterConflict(conflicts)
                } else {
                    return failure
                }
            }
        }
    }

    /// A write without a savepoint failed and took the transaction with it.
    private struct RunCarefully: Error {}

    /// How often a group that lost a serialization failure or deadlock runs again before its
    /// writes are told (`isConflict`: 503, try again).
    static let conflictRetries = 5

    /// A pause before the next try, growing with each (1-2 ms, then 2-4, 4-8, ...): two
    /// instances that keep meeting on the same rows should not meet again at once.
    private static func pauseAfterConflict(_ attempt: Int) {
        let base = 1_000 << min(attempt - 1, 6)
        usleep(UInt32(base + Int.random(in: 0..<base)))
    }

    static let groupAborted = PostgresError(
        sqlState: nil, message: "a write left its group's transaction aborted; no write of the group was kept")

    func close() {
        pending.close()
        session.queue.sync { drain() }
        session.close()
    }
}
