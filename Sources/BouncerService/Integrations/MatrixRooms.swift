import BouncerApplication
import BouncerDomain
import BouncerStore
import Foundation
import Locking

/// Notes the rooms each Matrix user posts in, for bans carried back to the homeserver. Each pair
/// is written once: the pairs this instance has written are remembered (up to `capacity`, then
/// forgotten at once and written again as they come, which changes nothing in the store), so a
/// message costs a set look-up, not a write.
final class MatrixRooms: Sendable {
    private let repository: any MatrixRoomRepository
    private let logger: Logger
    private let written = Locked<Set<String>>([])
    let capacity: Int

    init(repository: any MatrixRoomRepository, logger: Logger, capacity: Int = 100_000) {
        self.repository = repository
        self.logger = logger
        self.capacity = capacity
    }

    /// Records, in the background, that `user` posted in `room`.
    func note(user: String, room: String) {
        let key = user + "\u{0}" + room
        let isNew = written.withLock { written -> Bool in
            if written.count >= capacity { written.removeAll(keepingCapacity: true) }
            return written.insert(key).inserted
        }
        guard isNew else { return }
        let (repository, logger, written) = (self.repository, self.logger, self.written)
        Task {
            do {
                try await repository.noteMatrixRoom(userID: user, roomID: room, at: Timestamp.now())
            } catch {
                // Forgotten, so that the next message in the room tries again.
                _ = written.withLock { $0.remove(key) }
                logger.warn("a Matrix user's room could not be recorded; their next message there tries again",
                            ["room_id": .string(room), "error": .string(String(describing: error))])
            }
        }
    }

    /// The rooms `user` has posted in.
    func rooms(of user: String) async throws -> [String] {
        try await repository.matrixRooms(of: user, limit: 10_000)
    }
}
