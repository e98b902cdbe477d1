import BouncerDomain
import BouncerStore

/// A ban as the API, its events and the appeals queue show it.
package struct BanJSON: Encodable {
    package var user_id: String
    @Nullable package var reason: String?
    package var shadow: Bool
    @Nullable package var expires_at: String?
    package var created_by: String
    package var created_at: String

    package init(_ ban: StoredBan) {
        user_id = ban.userID
        reason = ban.reason
        shadow = ban.shadow
        expires_at = ban.expiresAt
        created_by = ban.createdBy
        created_at = ban.createdAt
    }
}
