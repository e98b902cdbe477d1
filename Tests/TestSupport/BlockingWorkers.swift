import Dispatch

/// Workers that block (on sockets, on processes) run on threads of their own: Swift's concurrent
/// tasks share as many threads as there are cores, and a few blocking ones would stop every
/// other task of the test, its timers and checks included.
public final class BlockingWorkers: Sendable {
    private let group = DispatchGroup()

    /// Starts `count` workers, each running `body` with its index.
    public init(count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        for index in 0..<count {
            DispatchQueue.global().async(group: group) { body(index) }
        }
    }

    /// Waits, without holding a thread, until every worker has returned.
    public func join() async {
        while group.wait(timeout: .now()) == .timedOut {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
