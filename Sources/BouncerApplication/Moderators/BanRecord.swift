import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation

/// A moderator's ban as it is written: the longest one may give, and the ban with its audit entry
/// and event.
package enum BanRecord {
    /// Ten years: the longest timed ban (a ban without an end is for good).
    package static let maxSeconds = 10 * 366 * 24 * 3600

    /// A moderator's ban of `userID`, with its audit entry and event, as written by the ban route
    /// and, in its own transaction, by a review's `ban_author`.
    package static func make(_ userID: String, reason: String?, seconds: Int?, shadow: Bool, by identity: Identity,
                     note: String? = nil) throws -> PlannedBan {
        let now = Date()
        let ban = StoredBan(userID: userID, reason: reason, shadow: shadow,
                            expiresAt: seconds.map { Timestamp.format(now.addingTimeInterval(Double($0))) },
                            createdBy: identity.userID, createdAt: Timestamp.format(now))
        var details = ["shadow": String(shadow)]
        if let seconds { details["duration_seconds"] = String(seconds) }
        return PlannedBan(ban: ban, audit: Audit.entry(identity, "user.ban", "user", userID, note: note ?? reason, details: details),
                         events: [try .of(.userBanned, BanJSON(ban))])
    }
}
