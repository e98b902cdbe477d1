import BouncerIdentity
import BouncerLocalization
import BouncerModeration
import BouncerStore
import Foundation

/// The verdict kept with a message, as `moderation` shows it.
struct ModerationRecord: Codable, Sendable, Equatable {
    var action: String
    var rules: [VerdictRule]
    var original_text: String
    var flagged: Bool

    init(verdict: Verdict, originalText: String, flagged: Bool) {
        action = verdict.action?.rawValue ?? "none"
        rules = verdict.rules.map(VerdictRule.init)
        original_text = originalText
        self.flagged = flagged
    }

    var json: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data("{}".utf8), as: UTF8.self) }

    static func decode(_ text: String?) -> ModerationRecord? {
        text.flatMap { try? JSONDecoder().decode(ModerationRecord.self, from: Data($0.utf8)) }
    }
}

/// The "Are you sure?" alert of a bounced message.
struct Alert: Encodable, Sendable {
    struct Action: Encodable, Sendable {
        var id: String
        var title: String
    }

    var title: String
    var message: String
    var actions: [Action]

    /// `resend` only when sending anyway does something (`bounce_flag`, `bounce_remove`).
    init(bounceAction: String?, choice: Catalog.Choice) {
        title = choice.text("message.moderation.alert.title")
        message = choice.text("message.moderation.alert.message")
        var actions: [Action] = []
        if bounceAction == "bounce_flag" || bounceAction == "bounce_remove" {
            actions.append(Action(id: "resend", title: choice.text("message.moderation.alert.resend")))
        }
        actions.append(Action(id: "edit", title: choice.text("message.moderation.alert.edit")))
        actions.append(Action(id: "delete", title: choice.text("message.moderation.alert.delete")))
        self.actions = actions
    }
}

/// A message as one caller sees it, texts in the caller's language.
struct MessageJSON: Encodable, Sendable {
    var id: String
    var channel_id: String
    var user_id: String
    var text: String
    var type: String
    var state: String
    var created_at: String
    var updated_at: String
    var edited: Bool
    var parent_id: String?
    var custom: AnyJSON?
    var moderation: ModerationRecord?
    var notice: String?
    var alert: Alert?

    init(_ message: StoredMessage, for identity: Identity, choice: Catalog.Choice) {
        let moderator = identity.role >= .moderator
        let author = message.userID == identity.userID
        // A shadowed message looks delivered to its author, and only moderators know otherwise.
        let state = message.state == "shadowed" && !moderator ? "delivered" : message.state
        id = message.id
        channel_id = message.channelID
        user_id = message.userID
        text = message.state == "deleted" && !moderator ? "" : message.text
        type = switch state {
        case "bounced", "removed": "error"
        case "deleted": "deleted"
        default: "regular"
        }
        self.state = state
        created_at = message.createdAt
        updated_at = message.updatedAt
        edited = message.edited
        parent_id = message.parentID
        custom = message.custom.flatMap { try? JSONDecoder().decode(AnyJSON.self, from: Data($0.utf8)) }
        if moderator || (author && (message.state == "bounced" || message.state == "removed")) {
            moderation = ModerationRecord.decode(message.moderation)
        }
        if author && message.state == "bounced" {
            notice = choice.text("message.bounce.title")
            alert = Alert(bounceAction: message.bounceAction, choice: choice)
        }
    }

    /// Whether `identity` may see `message` at all (hidden messages are 404, never 403).
    static func isVisible(_ message: StoredMessage, to identity: Identity) -> Bool {
        if identity.role >= .moderator { return true }
        switch message.state {
        case "delivered", "deleted": return true
        default: return message.userID == identity.userID
        }
    }
}
