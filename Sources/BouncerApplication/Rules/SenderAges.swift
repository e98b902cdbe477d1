import BouncerDomain
import BouncerStore
import Foundation
import Locking

/// When each user was first seen (their first message), for rules that apply to new users only
/// (`new_users_only_seconds`). Every send notes its sender in memory; new senders are written to
/// the store in batches (`user_first_seen`), so a send writes nothing for this. A sender's age is
/// read from the store once, when a rule first asks for it, and kept.
package final class SenderAges: Sendable {
    private struct Known {
        /// Seconds since 1970.
        var firstSeen: Double
        /// Read from the store (or found absent there), not only this instance's guess.
        var confirmed: Bool
    }

    private struct State {
        var known: [String: Known] = [:]
        var unwritten: [String: String] = [:]
    }

    private let store: any RuleStatsRepository
    /// Senders spread over locks by their id: every send notes its sender, on any thread.
    private let shards = (0..<16).map { _ in Locked(State()) }
    /// Most senders kept in memory; past it, half are forgotten (and read again when asked).
    package static let maxKnown = 200_000
    /// Most new senders held while the store cannot take them.
    package static let maxUnwritten = 100_000

    private func state(_ userID: String) -> Locked<State> {
        var hasher = Hasher()
        hasher.combine(userID)
        return shards[Int(UInt(bitPattern: hasher.finalize()) % UInt(shards.count))]
    }

    package init(store: any RuleStatsRepository) {
        self.store = store
    }

    /// A sender's age in seconds (0 for a first message), or that it must be read (`age`).
    package enum Age: Equatable {
        case known(Double)
        case unknown
    }

    /// Notes that `userID` sends now, and says their age when it is known for sure.
    @discardableResult
    package func note(_ userID: String, now: Double) -> Age {
        state(userID).withLock { state -> Age in
            if let known = state.known[userID] { return known.confirmed ? .known(max(0, now - known.firstSeen)) : .unknown }
            if state.known.count >= Self.maxKnown / shards.count {
                state.known = state.known.filter { _ in Bool.random() }
            }
            state.known[userID] = Known(firstSeen: now, confirmed: false)
            if state.unwritten.count < Self.maxUnwritten / shards.count {
                state.unwritten[userID] = Timestamp.format(Date(timeIntervalSince1970: now))
            }
            return .unknown
        }
    }

    /// The sender's age in seconds (0: this is their first message), read from the store when
    /// not known for sure. A store that cannot answer is taken to say "first seen now".
    package func age(_ userID: String, now: Double) async -> Double {
        if case .known(let age) = note(userID, now: now) { return age }
        let stored = try? await store.firstSeen(userID: userID)
        let firstSeen = stored.flatMap(Timestamp.epochSeconds)
        return state(userID).withLock { state -> Double in
            let guess = state.known[userID]?.firstSeen ?? now
            let earliest = min(firstSeen ?? guess, guess)
            state.known[userID] = Known(firstSeen: earliest, confirmed: true)
            return max(0, now - earliest)
        }
    }

    /// Writes the senders first seen since the last call.
    package func flush() async {
        var taken: [(userID: String, at: String)] = []
        for shard in shards {
            shard.withLock { state in
                taken += state.unwritten.map { (userID: $0.key, at: $0.value) }
                state.unwritten = [:]
            }
        }
        guard !taken.isEmpty else { return }
        do {
            try await store.recordFirstSeen(taken)
        } catch {
            for (user, at) in taken {
                state(user).withLock { state in
                    if state.unwritten.count < Self.maxUnwritten / shards.count { state.unwritten[user] = state.unwritten[user] ?? at }
                }
            }
        }
    }
}
