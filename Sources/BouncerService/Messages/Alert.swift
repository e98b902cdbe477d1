import BouncerDomain
import BouncerLocalization
import BouncerModeration
import BouncerStore
import Foundation
import HTTPServer

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
    init(bounceAction: RuleAction?, choice: Catalog.Choice) {
        title = choice.text("message.moderation.alert.title")
        message = choice.text("message.moderation.alert.message")
        var actions: [Action] = []
        if SendAnyway(bounceAction: bounceAction) != .unavailable {
            actions.append(Action(id: "resend", title: choice.text("message.moderation.alert.resend")))
        }
        actions.append(Action(id: "edit", title: choice.text("message.moderation.alert.edit")))
        actions.append(Action(id: "delete", title: choice.text("message.moderation.alert.delete")))
        self.actions = actions
    }
}
