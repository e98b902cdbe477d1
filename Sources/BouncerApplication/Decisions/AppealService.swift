import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation

/// A moderator's decision of an appeal: planned (`AppealPlanner`), applied in one transaction,
/// and the bans in force updated with what it lifted or gave.
package struct AppealService: Sendable {
    package let repository: any AppealRepository
    package let settings: LiveSettings
    package let events: MessageEvents
    package let bans: BanList

    package func decide(appealID: String, overturn: Bool, note: String?, by moderator: Identity) async throws -> AppealDecision {
        let planner = AppealPlanner(overturn: overturn, note: note, moderator: moderator, policy: settings.value.strike_policy, events: events)
        let now = Date()
        guard let decision = try await Replanning.run(
            "decision of appeal \(appealID)",
            read: { try await repository.appealSnapshot(id: appealID, now: Timestamp.format(now)) },
            plan: { try planner.plan($0, now: now) },
            apply: { try await repository.applyAppealDecision($0) }) else { throw AppealDecisionRefusal.notFound }
        // The appellant is the user banned, for an appeal of a ban and of a message alike.
        if let version = decision.liftedBanVersion { bans.remove(decision.appeal.userID, sequence: version) }
        if let ban = decision.strike.ban, let version = decision.strike.bansVersion { bans.set(ban, sequence: version) }
        return decision
    }

    package init(repository: any AppealRepository, settings: LiveSettings, events: MessageEvents, bans: BanList) {
        self.repository = repository
        self.settings = settings
        self.events = events
        self.bans = bans
    }
}
