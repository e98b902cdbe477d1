import Locking

/// Writes waiting for a store's writer, taken in groups: the first write of a quiet moment
/// schedules a drain, and writes that arrive while a group commits wait for the next group. The
/// group commit of both stores' writers.
public final class PendingWrites<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var draining = false
        var closed = false
    }

    private let state = Locked(State())

    public init() {}

    /// Queues `item`, calling `startDrain` (under the lock: it should only dispatch) when no drain
    /// is running. False once closed.
    public func add(_ item: Item, startDrain: () -> Void) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.items.append(item)
            if !state.draining {
                state.draining = true
                startDrain()
            }
            return true
        }
    }

    /// The next group, at most `limit` items; empty when none wait, and the drain is over.
    public func nextGroup(limit: Int) -> [Item] {
        state.withLock { state in
            guard !state.items.isEmpty else {
                state.draining = false
                return []
            }
            let count = min(state.items.count, limit)
            defer { state.items.removeFirst(count) }
            return Array(state.items.prefix(count))
        }
    }

    /// How many items wait for a group.
    public var count: Int { state.withLock { $0.items.count } }

    /// Refuses new writes; those queued are still drained.
    public func close() { state.withLock { $0.closed = true } }
}
