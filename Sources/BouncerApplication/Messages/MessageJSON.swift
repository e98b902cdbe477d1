import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerModeration
import BouncerStore
import Foundation
import JSON

/// A message as one caller sees it, texts in the caller's language.
package struct MessageJSON: Sendable {
    package var id: String
    package var channel_id: String
    package var user_id: String
    package var text: String
    package var type: String
    package var state: String
    package var created_at: String
    package var updated_at: String
    package var edited: Bool
    package var parent_id: String?
    /// Whether the caller sees the verdict (moderators always; authors of their bounced and
    /// removed messages).
    package var showsModeration = false
    /// What observed rules found is for moderators.
    package var showsObserved = false
    package var notice: String?
    package var alert: Alert?

    /// Whether the caller sees the client's `custom` data: a deleted message's tombstone shows
    /// nobody but moderators what it carried (an attachment's address, say).
    package var showsCustom = true

    /// `alertActionsEnabled`: `bounced_messages_alert_actions_enabled`; off, a bounced message
    /// carries its notice but no alert.
    package init(_ message: StoredMessage, for identity: Identity, choice: Catalog.Choice, alertActionsEnabled: Bool) {
        let viewer = identity.viewer
        let author = message.userID == identity.userID
        let state = message.state.shown(to: viewer)
        id = message.id
        channel_id = message.channelID
        user_id = message.userID
        let tombstone = message.state == .deleted && !viewer.seesEverything
        text = tombstone ? "" : message.text
        showsCustom = !tombstone
        type = state.isRefused ? "error" : state == .deleted ? "deleted" : "regular"
        self.state = state.rawValue
        created_at = message.createdAt
        updated_at = message.updatedAt
        edited = message.edited
        parent_id = message.parentID
        showsModeration = viewer.seesEverything || (author && message.state.isRefused)
        showsObserved = viewer.seesEverything
        if author && message.state == .bounced {
            notice = choice.text("message.bounce.title")
            if alertActionsEnabled { alert = Alert(bounceAction: message.bounceAction, choice: choice) }
        }
    }

    /// The JSON of this message, written by hand: this is the response of every send. The
    /// stored `custom` and `moderation` are JSON already and go in as they are.
    package func write(to json: inout [UInt8], custom storedCustom: String?, moderation storedModeration: String?) {
        // Each member's key as one literal: this runs for every message sent and listed.
        JSONText.appendMember(#"{"id":"#, id, to: &json)
        JSONText.appendMember(#","channel_id":"#, channel_id, to: &json)
        JSONText.appendMember(#","user_id":"#, user_id, to: &json)
        JSONText.appendMember(#","text":"#, text, to: &json)
        JSONText.appendMember(#","type":"#, type, to: &json)
        JSONText.appendMember(#","state":"#, state, to: &json)
        JSONText.appendMember(#","created_at":"#, created_at, to: &json)
        JSONText.appendMember(#","updated_at":"#, updated_at, to: &json)
        json.append(contentsOf: (edited ? #","edited":true"# : #","edited":false"#).utf8)
        if let parent_id { JSONText.appendMember(#","parent_id":"#, parent_id, to: &json) }
        if showsCustom, let storedCustom {
            json.append(contentsOf: #","custom":"#.utf8)
            json.append(contentsOf: storedCustom.utf8)
        }
        if showsModeration, let storedModeration {
            json.append(contentsOf: #","moderation":"#.utf8)
            json.append(contentsOf: (showsObserved ? storedModeration : ModerationRecord.forAuthor(storedModeration)).utf8)
        }
        if let notice { JSONText.appendMember(#","notice":"#, notice, to: &json) }
        if let alert {
            json.append(contentsOf: #","alert":"#.utf8)
            alert.write(to: &json)
        }
        json.append(UInt8(ascii: "}"))
    }

    package static func json(_ message: StoredMessage, for identity: Identity, choice: Catalog.Choice, alertActionsEnabled: Bool) -> [UInt8] {
        var json: [UInt8] = []
        json.reserveCapacity(512 + message.text.utf8.count)
        MessageJSON(message, for: identity, choice: choice, alertActionsEnabled: alertActionsEnabled)
            .write(to: &json, custom: message.custom, moderation: message.moderation)
        return json
    }

    /// Whether `identity` may see `message` at all (hidden messages are 404, never 403).
    package static func isVisible(_ message: StoredMessage, to identity: Identity) -> Bool {
        MessageVisibility.isVisible(state: message.state, hidden: message.hidden, authorID: message.userID, to: identity.viewer)
    }
}

/// An earlier text of a message, as moderators read it.
package struct RevisionJSON: Encodable {
    package var revision: Int
    package var text: String
    package var state: MessageState
    package var created_at: String

    package init(_ revision: MessageRevision) {
        self.revision = revision.revision
        text = revision.text
        state = revision.state
        created_at = revision.createdAt
    }
}
