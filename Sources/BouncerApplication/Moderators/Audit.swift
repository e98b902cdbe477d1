import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation
import JSON

/// Writes the audit log: every moderator and admin action, who, what, on what, when.
package struct Audit: Sendable {
    package let repository: any ModerationRepository

    /// The service's own acts (a ban by the strike policy) are recorded as this actor's: the id no
    /// person may have (`UserID.reserved`).
    package static let system = Identity(userID: SystemFlag.reporterID, role: .admin)

    package func entry(_ identity: Identity, _ action: String, _ targetType: String, _ targetID: String, note: String? = nil,
               details: [String: String]? = nil) -> AuditEntry {
        Self.entry(identity, action, targetType, targetID, note: note, details: details)
    }

    package static func entry(_ identity: Identity, _ action: String, _ targetType: String, _ targetID: String, note: String? = nil,
                      details: [String: String]? = nil) -> AuditEntry {
        let json = details.flatMap { try? JSONText.encodedString($0) }
        return AuditEntry(id: TimeOrderedID.make(), actorID: identity.userID, action: action, targetType: targetType,
                          targetID: targetID, note: note, details: json, createdAt: Timestamp.now())
    }

    package func record(_ identity: Identity, _ action: String, _ targetType: String, _ targetID: String, note: String? = nil,
                details: [String: String]? = nil) async throws {
        try await repository.record(entry(identity, action, targetType, targetID, note: note, details: details))
    }

    package init(repository: any ModerationRepository) {
        self.repository = repository
    }
}
