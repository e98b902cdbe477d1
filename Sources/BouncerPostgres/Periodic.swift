import Locking

/// Says yes at most once per `interval`: for upkeep (pruning a table) done now and then on a path
/// that runs often.
struct Periodic: Sendable {
    private let interval: Duration
    private let last = Locked(ContinuousClock.now)

    init(every interval: Duration) {
        self.interval = interval
    }

    /// True when `interval` has passed since it last said true (or since it was made).
    func isDue() -> Bool {
        let now = ContinuousClock.now
        return last.withLock { last in
            guard now - last > interval else { return false }
            last = now
            return true
        }
    }
}
