import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation

/// Why a review cannot be made.
package enum ReviewRefusal: Error, Sendable, Equatable {
    case messageNotFound
}

/// A moderator's review of a flagged message: planned (`ReviewPlanner`), applied in one
/// transaction, and the bans in force updated with the bans it gave.
package struct ReviewService: Sendable {
    package let repository: any FlagRepository
    package let settings: LiveSettings
    package let events: MessageEvents
    package let bans: BanList

    package func review(messageID: String, decision: ReviewPlanner.Decision, note: String?, banSeconds: Int?,
                by moderator: Identity) async throws -> ReviewResult {
        let planner = ReviewPlanner(decision: decision, note: note, banSeconds: banSeconds, moderator: moderator,
                                    policy: settings.value.strike_policy, events: events)
        let now = Date()
        guard let result = try await Replanning.run(
            "review of message \(messageID)",
            read: { try await repository.reviewSnapshot(messageID: messageID, now: Timestamp.format(now)) },
            plan: { try planner.plan($0, now: now) },
            apply: { try await repository.applyReview($0) }) else { throw ReviewRefusal.messageNotFound }
        if let ban = result.strike.ban, let version = result.strike.bansVersion { bans.set(ban, sequence: version) }
        if let ban = result.ban, let version = result.banVersion { bans.set(ban, sequence: version) }
        return result
    }

    package init(repository: any FlagRepository, settings: LiveSettings, events: MessageEvents, bans: BanList) {
        self.repository = repository
        self.settings = settings
        self.events = events
        self.bans = bans
    }
}
