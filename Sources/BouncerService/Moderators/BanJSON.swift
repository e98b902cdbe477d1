import BouncerDomain
import BouncerStore

/// A ban as the API, its events and the appeals queue show it.
struct BanJSON: Encodable {
    var user_id: String
    @Nullable var reason: String?
    var shadow: Bool
    @Nullable var expires_at: String?
    var created_by: String
    var created_at: String

    init(_ ban: StoredBan) {
        user_id = ban.userID
        reason = ban.reason
        shadow = ban.shadow
        expires_at = ban.expiresAt
        created_by = ban.createdBy
        created_at = ban.createdAt
    }
}
