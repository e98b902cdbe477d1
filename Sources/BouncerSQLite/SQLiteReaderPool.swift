import BouncerStore
import Dispatch
import Synchronization

/// Read-only connections, each on its own serial queue. WAL lets them read a consistent snapshot
/// while the writer commits.
public final class SQLiteReaderPool: Sendable {
    private let readers: [(connection: UncheckedBox<SQLiteDatabase>, queue: DispatchQueue)]
    private let next = Atomic<UInt>(0)

    init(connections: [SQLiteDatabase]) {
        precondition(!connections.isEmpty, "a reader pool needs at least one connection")
        readers = connections.enumerated().map { index, connection in
            let queue = DispatchQueue(label: "bouncer.store.reader.\(index)", qos: .userInitiated)
            return (UncheckedBox(connection, confinedTo: queue), queue)
        }
    }

    /// Runs `work` on one reader inside a read transaction, so every query in it sees one snapshot.
    public func read<T: Sendable>(_ work: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T {
        let index = Int(next.add(1, ordering: .relaxed).newValue % UInt(readers.count))
        let reader = readers[index]
        return try await withCheckedThrowingContinuation { continuation in
            reader.queue.async {
                continuation.resume(with: Result { try reader.connection.value.inTransaction(immediate: false, work) })
            }
        }
    }

    func close() {
        for reader in readers {
            reader.queue.sync { reader.connection.value.close() }
        }
    }
}
