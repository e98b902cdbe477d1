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
    /// SCHED_IDLE of <sched.h>, which Glibc's Swift module does not export.
    private static let schedIdle: Int32 = 5

    /// `idleOnly`: the thread runs only when a core would otherwise be idle (Linux's SCHED_IDLE),
    /// for work that may wait as long as it must (a training), where a nice value still takes a
    /// share of a busy core.
    package init(label: String, idleOnly: Bool = false) {
        let thread = Thread { [queue, ready] in
            // On Linux a nice value is a thread's own, and `who` 0 names the calling thread: this
            // lowers this thread alone, not the process.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
            if idleOnly {
                var parameters = sched_param()
                _ = sched_setscheduler(0, Self.schedIdle, &parameters)
            }
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
