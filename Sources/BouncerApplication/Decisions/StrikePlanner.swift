import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation

/// The strike a confirmed violation makes, planned from the user's standing: a new strike unless
/// the message has one, and the ban the strike policy's step then calls for, unless a ban in force
/// already lasts as long.
package struct StrikePlan: Sendable {
    /// The strike to make; nil when the message has one in force already.
    package var strike: StoredStrike?
    /// The ban the policy gives, by `system`, with its audit entry and event.
    package var ban: PlannedBan?
    /// What the decision answers: the strike in force for it and the ban given (versions unset).
    package var outcome: StrikeOutcome

    /// A strike on `userID` for `messageID` at `now`, with reason `reason`, under `policy` (nil: none set).
    package static func make(on standing: Standing, userID: String, messageID: String?, reason: String, policy: StrikePolicy?,
                     now: Date) throws -> StrikePlan {
        if let existing = standing.messageStrike {
            return StrikePlan(strike: nil, ban: nil, outcome: StrikeOutcome(added: false, ban: nil, bansVersion: nil, strikeID: existing.id))
        }
        let days = policy?.window_days ?? StrikePolicy.defaultWindowDays
        let strike = StoredStrike(id: TimeOrderedID.make(), userID: userID, reason: reason, messageID: messageID,
                                  createdAt: Timestamp.format(now), expiresAt: Timestamp.format(now.addingTimeInterval(Double(days) * 86_400)))
        var plan = StrikePlan(strike: strike, ban: nil, outcome: StrikeOutcome(added: true, ban: nil, bansVersion: nil, strikeID: strike.id))
        guard let step = policy?.step(for: standing.activeStrikes + 1) else { return plan }
        let end = step.ban_seconds.map { Timestamp.format(now.addingTimeInterval(Double($0))) }
        if let current = standing.ban {
            // A ban for good, or one that ends no sooner than the policy's, stays as it is.
            guard let currentEnd = current.expiresAt else { return plan }
            if let end, currentEnd >= end { return plan }
        }
        let ban = StoredBan(userID: userID, reason: "strikes", shadow: false, expiresAt: end, createdBy: Audit.system.userID,
                            createdAt: Timestamp.format(now))
        var details = ["shadow": "false", "reason": "strikes"]
        if let end { details["expires_at"] = end }
        plan.ban = PlannedBan(ban: ban, cause: BanCause(strikeID: strike.id, strikeStep: step.strikes),
                              audit: Audit.entry(Audit.system, "user.ban", "user", userID, note: "strikes", details: details),
                              events: [try .of(.userBanned, BanJSON(ban))])
        plan.outcome.ban = ban
        return plan
    }
}
