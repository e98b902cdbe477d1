import Dispatch

/// One connection to the server on a serial queue of its own, opened again when the server went
/// away: whatever ran on the lost connection fails as unavailable (503 to clients), and the next
/// use connects anew, at most once every `retryInterval`, so a database that is down costs each
/// request one failed connect at most, not a wait.
final class PostgresSession: @unchecked Sendable {
    let queue: DispatchQueue
    private let url: String
    /// Only touched on `queue`.
    private var connection: PostgresConnection?
    private var lastAttempt: ContinuousClock.Instant?
    private let retryInterval: Duration
    /// Run on each new connection before its first use (`LISTEN`, settings).
    private let prepare: (PostgresConnection) throws -> Void

    init(url: String, label: String, retryInterval: Duration = .milliseconds(250),
         prepare: @escaping (PostgresConnection) throws -> Void = { _ in }) {
        self.url = url
        self.queue = DispatchQueue(label: label, qos: .userInitiated)
        self.retryInterval = retryInterval
        self.prepare = prepare
    }

    /// The open connection, connecting if needed. Call on `queue` (checked: libpq's connection
    /// is not safe to use from two threads, and a second thread's message sent into the middle
    /// of another's breaks the protocol for both).
    func open() throws(PostgresError) -> PostgresConnection {
        dispatchPrecondition(condition: .onQueue(queue))
        if let connection, connection.isOpen { return connection }
        connection?.close()
        connection = nil
        let now = ContinuousClock.now
        if let lastAttempt, now - lastAttempt < retryInterval {
            throw PostgresError(sqlState: nil, message: "the database is unreachable; trying again shortly", connectionLost: true)
        }
        lastAttempt = now
        let opened = try PostgresConnection(url: url)
        do {
            try prepare(opened)
        } catch let error as PostgresError {
            opened.close()
            throw error
        } catch {
            opened.close()
            throw PostgresError(sqlState: nil, message: String(describing: error), connectionLost: true)
        }
        connection = opened
        return opened
    }

    /// Runs `work` on the queue with the connection; a lost connection is closed, to be opened
    /// again by the next use.
    func run<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.runHere(work) })
            }
        }
    }

    /// As `run`, on the queue already.
    func runHere<T>(_ work: (PostgresConnection) throws -> T) throws -> T {
        let connection = try open()
        do {
            return try work(connection)
        } catch let error as PostgresError where error.connectionLost || !connection.isOpen {
            connection.close()
            throw error
        }
    }

    func close() {
        queue.sync {
            connection?.close()
            connection = nil
        }
    }
}
