import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation
import HTTPServer
import Locking

/// The bans in force, kept in memory so the send path checks them without a read: loaded at
/// start, changed only after the store has committed a change.
final class BanList: Sendable {
    private let bans: Locked<[String: StoredBan]>

    init(repository: any ModerationRepository) async throws {
        var loaded: [String: StoredBan] = [:]
        var after: String?
        while true {
            let page = try await repository.activeBans(now: Timestamp.now(), after: after, limit: 1000)
            for ban in page { loaded[ban.userID] = ban }
            guard page.count == 1000 else { break }
            after = page.last?.userID
        }
        bans = Locked(loaded)
    }

    /// The ban on `userID` in force now, if any (a timed ban lifts itself when its time is up).
    /// `now` is read only for a timed ban: every send asks, and most senders have none.
    func active(_ userID: String, now: @autoclosure () -> String = Timestamp.now()) -> StoredBan? {
        bans.withLock { bans in
            guard let ban = bans[userID] else { return nil }
            if let expires = ban.expiresAt, expires <= now() {
                bans[userID] = nil
                return nil
            }
            return ban
        }
    }

    func set(_ ban: StoredBan) { bans.withLock { $0[ban.userID] = ban } }
    func remove(_ userID: String) { bans.withLock { $0[userID] = nil } }
}
