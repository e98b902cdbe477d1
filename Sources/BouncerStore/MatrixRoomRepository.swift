/// The Matrix rooms each user has posted in, as Bouncer has seen them: where a ban in Bouncer is
/// carried to the homeserver.
public protocol MatrixRoomRepository: Sendable {
    /// Records that `userID` posted in `roomID` (once; later calls change nothing).
    func noteMatrixRoom(userID: String, roomID: String, at: String) async throws
    /// The rooms `userID` has posted in, oldest first, at most `limit`.
    func matrixRooms(of userID: String, limit: Int) async throws -> [String]
}

extension SQLStore {
    public func noteMatrixRoom(userID: String, roomID: String, at time: String) async throws {
        try await write { database in
            try database.execute("INSERT INTO matrix_rooms (user_id, room_id, first_seen_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                                 [.text(userID), .text(roomID), .text(time)])
        }
    }

    public func matrixRooms(of userID: String, limit: Int) async throws -> [String] {
        try await read { database in
            try database.fetchAll("SELECT room_id FROM matrix_rooms WHERE user_id = ? ORDER BY first_seen_at, room_id LIMIT ?",
                                  [.text(userID), .integer(Int64(limit))]).map { try $0.decode("room_id", as: String.self) }
        }
    }
}
