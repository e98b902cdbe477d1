import Dispatch
import Foundation

/// Workers that block (on sockets, on processes) run on threads of their own: Swift's concurrent
/// tasks share as many threads as there are cores, and a few blocking ones would stop every
/// other task of the test, its timers and checks included.
public final class BlockingWorkers: Sendable {
    private let group = DispatchGroup()

    /// Starts `count` workers, each running `body` with its index.
    public init(count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        // Threads, not Dispatch's global queue: on Linux that queue runs as many blocks at once
        // as there are cores, and shares them with the tasks of Swift concurrency, so workers
        // that block there could leave no thread for the test's own task that stops them.
        for index in 0..<count {
            group.enter()
            let thread = Thread { [group] in
                body(index)
                group.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Waits, without holding a thread, until every worker has returned.
    public func join() async {
        while group.wait(timeout: .now()) == .timedOut {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
