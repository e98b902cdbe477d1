import Foundation
import Glibc
import Locking

/// A thread of its own that runs long background work (a dry run's matching) at a lower
/// scheduling priority than the threads that serve requests: with the cores busy, the kernel
/// gives it a small share and sends keep theirs; with them idle, it runs at full speed.
package final class LowPriorityWorker: Sendable {
    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
    }

    private let queue = Locked(Queue())
    private let ready = DispatchSemaphore(value: 0)
    /// The nice value the thread runs at (0 is the default; 19 the lowest priority).
    package static let niceness: Int32 = 10

    package init(label: String) {
        let thread = Thread { [queue, ready] in
            // On Linux a nice value is a thread's own, and `who` 0 names the calling thread: this
            // lowers this thread alone, not the process.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
            while true {
                ready.wait()
                let job = queue.withLock { $0.jobs.removeFirst() }
                job()
            }
        }
        thread.name = label
        thread.start()
    }

    /// Runs `work` on the worker's thread and returns its result.
    package func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.withLock { $0.jobs.append { continuation.resume(returning: work()) } }
            ready.signal()
        }
    }
}
