import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerModeration
import BouncerStore
import Foundation
import HTTPServer

/// The actions a caller may take on a message, in the caller's language.
extension MessagesRoutes {
    struct ActionJSON: Encodable {
        struct Confirmation: Encodable {
            var title: String
            var message: String
            var button: String
        }

        var id: String
        var title: String
        var destructive: Bool
        var confirmation: Confirmation?
    }

    func actions(_ request: Request, _ identity: Identity) async throws -> Response {
        let message = try await visibleMessage(request, identity)
        let settings = self.settings.value
        let choice = localization.choice(for: request.head)
        let own = message.userID == identity.userID
        var actions: [ActionJSON] = []
        if own && message.state == .bounced && settings.bounced_messages_alert_actions_enabled {
            actions = Alert(bounceAction: message.bounceAction, choice: choice).actions.map {
                ActionJSON(id: $0.id, title: $0.title, destructive: $0.id == "delete", confirmation: nil)
            }
        } else {
            let deleteAction = ActionJSON(id: "delete", title: choice.text("message.actions.delete"), destructive: true,
                                          confirmation: .init(title: choice.text("message.actions.delete.confirmation-title"),
                                                              message: choice.text("message.actions.delete.confirmation-message"),
                                                              button: choice.text("message.actions.delete.confirmation-button")))
            if own && message.state != .deleted {
                actions.append(ActionJSON(id: "edit", title: choice.text("message.actions.edit"), destructive: false, confirmation: nil))
                actions.append(deleteAction)
            } else if !own {
                if settings.flag_action_enabled, message.state != .deleted,
                   try await !store.hasOpenFlag(messageID: message.id, reporterID: identity.userID) {
                    actions.append(ActionJSON(id: "flag", title: choice.text("message.actions.flag"), destructive: true,
                                              confirmation: .init(title: choice.text("message.actions.flag.confirmation-title"),
                                                                  message: choice.text("message.actions.flag.confirmation-message"),
                                                                  button: choice.text("message.actions.flag.confirmation-button"))))
                }
                if identity.role >= .moderator && message.state != .deleted { actions.append(deleteAction) }
            }
        }
        var response = try Response.encoded(ListResponse(name: "actions", items: actions))
        Localization.mark(&response, choice)
        return response
    }
}
