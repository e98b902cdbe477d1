import Foundation

/// Runs blocking work (child processes, socket reads with timeouts) on a thread of its own, so it
/// never holds one of the few threads Swift concurrency shares with every other test running at
/// the same time, and with the servers those tests start.
public func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try work() })
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
