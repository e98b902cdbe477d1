import BouncerDomain
import BouncerLocalization
import BouncerModeration
import BouncerStore
import Foundation
import JSON

/// The "Are you sure?" alert of a bounced message.
package struct Alert: Sendable {
    package struct Action: Sendable {
        package var id: String
        package var title: String
    }

    package var title: String
    package var message: String
    package var actions: [Action]

    /// `resend` only when sending anyway does something (`bounce_flag`, `bounce_remove`).
    package init(bounceAction: RuleAction?, choice: Catalog.Choice) {
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

    /// The alert's JSON, written by hand: it goes out with every bounced message its author sees.
    package func write(to json: inout [UInt8]) {
        json.append(contentsOf: #"{"title":"#.utf8)
        JSONText.appendString(title, to: &json)
        json.append(contentsOf: #","message":"#.utf8)
        JSONText.appendString(message, to: &json)
        json.append(contentsOf: #","actions":["#.utf8)
        for (index, action) in actions.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.append(contentsOf: #"{"id":"#.utf8)
            JSONText.appendString(action.id, to: &json)
            json.append(contentsOf: #","title":"#.utf8)
            JSONText.appendString(action.title, to: &json)
            json.append(UInt8(ascii: "}"))
        }
        json.append(contentsOf: "]}".utf8)
    }

    package var json: String {
        var json: [UInt8] = []
        write(to: &json)
        return String(decoding: json, as: UTF8.self)
    }
}
