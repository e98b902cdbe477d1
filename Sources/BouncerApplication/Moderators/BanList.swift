import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation
import Locking

/// The bans in force, kept in memory so the send path checks them without a read: loaded at
/// start, changed only after the store has committed a change, and each change carries the bans'
/// version (`ChangeTopic.bans`), so a reload of another instance's change never undoes a later one.
package final class BanList: Sendable {
    private struct State {
        var bans: [String: StoredBan]
        var sequence: UInt64
    }

    private let state: Locked<State>

    package init(repository: any ModerationRepository) async throws {
        let snapshot = try await repository.allActiveBans(now: Timestamp.now())
        state = Locked(State(bans: Self.byUser(snapshot.bans), sequence: snapshot.sequence))
    }

    /// The bans' version in force.
    package var version: UInt64 { state.withLock { $0.sequence } }

    /// The ban on `userID` in force now, if any (a timed ban lifts itself when its time is up).
    /// `now` is read only for a timed ban: every send asks, and most senders have none.
    package func active(_ userID: String, now: @autoclosure () -> String = Timestamp.now()) -> StoredBan? {
        state.withLock { state in
            guard let ban = state.bans[userID] else { return nil }
            if let expires = ban.expiresAt, expires <= now() {
                state.bans[userID] = nil
                return nil
            }
            return ban
        }
    }

    /// A ban this instance committed at `sequence`.
    package func set(_ ban: StoredBan, sequence: UInt64) { change(sequence) { $0[ban.userID] = ban } }
    /// A lifted ban this instance committed at `sequence`.
    package func remove(_ userID: String, sequence: UInt64) { change(sequence) { $0[userID] = nil } }

    /// Every ban as the store had them at the snapshot's version, unless a later one is in force.
    package func apply(_ snapshot: BanSnapshot) {
        state.withLock { state in
            guard snapshot.sequence > state.sequence else { return }
            state = State(bans: Self.byUser(snapshot.bans), sequence: snapshot.sequence)
        }
    }

    private func change(_ sequence: UInt64, _ edit: (inout [String: StoredBan]) -> Void) {
        state.withLock { state in
            guard sequence > state.sequence else { return }
            edit(&state.bans)
            state.sequence = sequence
        }
    }

    private static func byUser(_ bans: [StoredBan]) -> [String: StoredBan] {
        Dictionary(bans.map { ($0.userID, $0) }, uniquingKeysWith: { _, last in last })
    }
}
