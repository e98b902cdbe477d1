import BouncerDomain
import BouncerIdentity
import BouncerStore

/// Why a ban cannot be lifted.
package enum BanRefusal: Error, Sendable, Equatable {
    /// Nobody lifts their own ban.
    case ownCase
    case notBanned
}

/// A moderator's ban and its lifting from the API: written with its audit entry and event, then
/// put in force in the ban list at the version it committed at.
package struct BanService: Sendable {
    package let repository: any ModerationRepository
    package let bans: BanList
    package let audit: Audit

    package init(repository: any ModerationRepository, bans: BanList, audit: Audit) {
        self.repository = repository
        self.bans = bans
        self.audit = audit
    }

    /// Bans `userID` (for `seconds`, or for good), replacing any ban on them.
    package func ban(_ userID: String, reason: String?, seconds: Int?, shadow: Bool, by moderator: Identity) async throws -> StoredBan {
        let record = try BanRecord.make(userID, reason: reason, seconds: seconds, shadow: shadow, by: moderator)
        bans.set(record.ban, sequence: try await repository.ban(record.ban, audit: record.audit, events: record.events))
        return record.ban
    }

    /// Lifts the ban on `userID`.
    package func unban(_ userID: String, by moderator: Identity) async throws {
        guard userID != moderator.userID else { throw BanRefusal.ownCase }
        guard let sequence = try await repository.unban(userID: userID, audit: audit.entry(moderator, "user.unban", "user", userID),
                                                        events: [.of(.userUnbanned, ["user_id": userID])]) else {
            throw BanRefusal.notBanned
        }
        bans.remove(userID, sequence: sequence)
    }
}
