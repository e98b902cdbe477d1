import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation

/// Why an appeal cannot be decided.
package enum AppealDecisionRefusal: Error, Sendable {
    case notFound
    case alreadyDecided
    /// The decider is the appellant: nobody decides their own case.
    case ownCase
}

/// A moderator's decision of an appeal, planned as a pure function of what the store was read to
/// hold (`AppealSnapshot`), the decision and the strike policy:
/// - an overturn delivers the message again (its rule hits dismissed, its strike taken back, and
///   a ban the strike policy gave lifted once the user's strikes fall below its step), or lifts the
///   ban appealed and takes back the strike its decision made;
/// - an upheld removal is a strike, which may bring the policy's ban.
package struct AppealPlanner: Sendable {
    package var overturn: Bool
    package var note: String?
    package var moderator: Identity
    package var policy: StrikePolicy?
    package var events: MessageEvents

    package func plan(_ snapshot: AppealSnapshot, now: Date) throws -> AppealPlan {
        var appeal = snapshot.appeal
        guard appeal.userID != moderator.userID else { throw AppealDecisionRefusal.ownCase }
        guard appeal.state == "open" else { throw AppealDecisionRefusal.alreadyDecided }
        appeal.state = overturn ? "overturned" : "upheld"
        appeal.decidedBy = moderator.userID
        appeal.decidedAt = snapshot.now
        appeal.note = note
        let standing = snapshot.appellant
        var result = AppealDecision(appeal: appeal, message: snapshot.message, ban: nil)
        var plan = AppealPlan(snapshot: snapshot, appeal: appeal, message: snapshot.message, dismissedRules: [], revokedStrikeID: nil,
                              liftedBan: nil, strike: nil, strikeBan: nil,
                              audit: Audit.entry(moderator, "appeal.decide", "appeal", appeal.id, note: note,
                                                 details: ["decision": overturn ? "overturn" : "uphold"]),
                              events: [], result: result)
        if appeal.targetType == "message", let message = snapshot.message {
            if overturn {
                var delivered = message
                if message.state == .removed || message.state == .bounced {
                    delivered.state = .delivered
                    delivered.hidden = false
                    delivered.removedBy = nil
                    delivered.updatedAt = snapshot.now
                }
                plan.message = delivered
                result.message = delivered
                plan.dismissedRules = ModerationRecord.ruleIDs(message.moderation)
                plan.revokedStrikeID = standing.messageStrike?.id
                let counted = standing.messageStrike.map { $0.expiresAt > snapshot.now } ?? false
                if standing.ban != nil, let step = standing.banCause.strikeStep, standing.activeStrikes - (counted ? 1 : 0) < step {
                    plan.liftedBan = LiftedBan(
                        userID: message.userID,
                        audit: AuditEntry(id: TimeOrderedID.make(), actorID: SystemFlag.reporterID, action: "user.unban", targetType: "user",
                                          targetID: message.userID, note: "strikes", details: #"{"reason":"strikes"}"#, createdAt: snapshot.now),
                        events: [try .of(.userUnbanned, ["user_id": message.userID, "reason": "strikes"])])
                    result.liftedStrikeBan = true
                }
            } else if message.state == .removed {
                let strike = try StrikePlan.make(on: standing, userID: message.userID, messageID: message.id, reason: "appeal_upheld",
                                                 policy: policy, now: now)
                plan.strike = strike.strike
                plan.strikeBan = strike.ban
                result.strike = strike.outcome
            }
        } else if appeal.targetType == "ban", let ban = standing.ban {
            if overturn {
                plan.revokedStrikeID = standing.banCause.strikeID
                plan.liftedBan = LiftedBan(userID: ban.userID, audit: nil, events: [])
            } else {
                result.ban = ban
            }
        }
        plan.events = [events.ofAppeal(.appealDecided, appeal, message: result.message)]
        // The ban appealed, lifted (a strike policy's ban lifted by a message's overturn has its own event).
        if plan.liftedBan != nil, !result.liftedStrikeBan { plan.events.append(try .of(.userUnbanned, ["user_id": appeal.userID])) }
        plan.result = result
        return plan
    }
}
