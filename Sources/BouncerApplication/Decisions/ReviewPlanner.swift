import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation

/// A moderator's review of a flagged message, planned as a pure function of what the store was
/// read to hold (`ReviewSnapshot`), the decision and the strike policy. The store applies the
/// plan in one transaction; nothing calls back into this layer from inside it.
package struct ReviewPlanner: Sendable {
    package enum Decision: String, Sendable {
        case dismiss
        case removeMessage = "remove_message"
        case banAuthor = "ban_author"

        /// The flags' resolution, and the strike's reason.
        package var resolution: String {
            switch self {
            case .dismiss: "dismissed"
            case .removeMessage: "message_removed"
            case .banAuthor: "author_banned"
            }
        }
    }

    package var decision: Decision
    package var note: String?
    /// For `ban_author`: how long the ban lasts (nil: for good).
    package var banSeconds: Int?
    package var moderator: Identity
    package var policy: StrikePolicy?
    package var events: MessageEvents

    package func plan(_ snapshot: ReviewSnapshot, now: Date) throws -> ReviewPlan {
        let reviewed = snapshot.message
        var message = reviewed
        // A message its author deleted stays deleted; nobody else saw it while it was hidden.
        if message.state != .deleted {
            message.hidden = false
            if decision == .removeMessage {
                message.state = .removed
                message.removedBy = moderator.userID
                message.updatedAt = snapshot.now
            }
        }
        // Removing the message or banning its author confirms a violation: a strike on the author.
        let strike = decision == .dismiss ? nil
            : try StrikePlan.make(on: snapshot.author, userID: reviewed.userID, messageID: reviewed.id, reason: decision.resolution,
                                  policy: policy, now: now)
        var moderatorBan: PlannedBan?
        if decision == .banAuthor {
            var given = try BanRecord.make(reviewed.userID, reason: note, seconds: banSeconds, shadow: false, by: moderator, note: note)
            given.cause = BanCause(strikeID: strike?.outcome.strikeID, strikeStep: nil)
            // The moderator's ban, unless the strike policy's just given lasts at least as long.
            if strike?.ban.map({ PlannedBan.ends($0.ban.expiresAt, before: given.ban.expiresAt) }) ?? true { moderatorBan = given }
        }
        let result = ReviewResult(message: message, resolved: snapshot.openFlags, strike: strike?.outcome ?? .none, ban: moderatorBan?.ban)
        return ReviewPlan(
            snapshot: snapshot, resolution: decision.resolution, moderatorID: moderator.userID, message: message,
            ruleReviews: ModerationRecord.ruleIDs(reviewed.moderation), ruleOutcome: decision == .dismiss ? "dismissed" : "confirmed",
            audit: Audit.entry(moderator, "flag.review", "message", reviewed.id, note: note, details: ["decision": decision.rawValue]),
            strike: strike?.strike, strikeBan: strike?.ban, moderatorBan: moderatorBan,
            events: events.ofReview(result, messageID: reviewed.id, decision: decision.rawValue, resolution: decision.resolution,
                                    moderatorID: moderator.userID),
            result: result)
    }
}
