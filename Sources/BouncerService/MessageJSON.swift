import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerModeration
import BouncerStore
import Foundation
import HTTPServer
import JSON

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

    /// The stored form, written by hand: it is built for every moderated message as it is sent.
    /// `decode` reads it back (and anything `JSONEncoder` wrote before), with the strict parser.
    var json: String {
        var out: [UInt8] = []
        out.reserveCapacity(128 + original_text.utf8.count)
        JSONText.appendMember(#"{"action":"#, action, to: &out)
        out.append(contentsOf: #","rules":["#.utf8)
        for (index, rule) in rules.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendMember(#"{"id":"#, rule.id, to: &out)
            JSONText.appendMember(#","name":"#, rule.name, to: &out)
            JSONText.appendMember(#","kind":"#, rule.kind, to: &out)
            if let action = rule.action {
                JSONText.appendMember(#","action":"#, action, to: &out)
            }
            out.append(contentsOf: #","matched":["#.utf8)
            for (spanIndex, span) in rule.matched.enumerated() {
                if spanIndex > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendMember(#"{"text":"#, span.text, to: &out)
                out.append(contentsOf: #","start":\#(span.start),"end":\#(span.end),"#.utf8)
                out.append(contentsOf: #""utf16_start":\#(span.utf16Start),"utf16_end":\#(span.utf16End)}"#.utf8)
            }
            out.append(contentsOf: "]}".utf8)
        }
        JSONText.appendMember(#"],"original_text":"#, original_text, to: &out)
        out.append(contentsOf: (flagged ? #","flagged":true}"# : #","flagged":false}"#).utf8)
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String?) -> ModerationRecord? {
        text.flatMap { try? JSONValue.decode(ModerationRecord.self, from: $0) }
    }
}

/// The "Are you sure?" alert of a bounced message.
struct Alert: Sendable {
    struct Action: Sendable {
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

    /// The alert's JSON, written by hand: it goes out with every bounced message its author sees.
    func write(to json: inout [UInt8]) {
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

    var json: String {
        var json: [UInt8] = []
        write(to: &json)
        return String(decoding: json, as: UTF8.self)
    }
}

/// A message as one caller sees it, texts in the caller's language.
struct MessageJSON: Sendable {
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
    /// Whether the caller sees the verdict (moderators always; authors of their bounced and
    /// removed messages).
    var showsModeration = false
    var notice: String?
    var alert: Alert?

    /// `alertActionsEnabled`: `bounced_messages_alert_actions_enabled`; off, a bounced message
    /// carries its notice but no alert.
    init(_ message: StoredMessage, for identity: Identity, choice: Catalog.Choice, alertActionsEnabled: Bool) {
        let viewer = identity.viewer
        let author = message.userID == identity.userID
        let state = message.state.shown(to: viewer)
        id = message.id
        channel_id = message.channelID
        user_id = message.userID
        text = message.state == .deleted && !viewer.seesEverything ? "" : message.text
        type = state.isRefused ? "error" : state == .deleted ? "deleted" : "regular"
        self.state = state.rawValue
        created_at = message.createdAt
        updated_at = message.updatedAt
        edited = message.edited
        parent_id = message.parentID
        showsModeration = viewer.seesEverything || (author && message.state.isRefused)
        if author && message.state == .bounced {
            notice = choice.text("message.bounce.title")
            if alertActionsEnabled { alert = Alert(bounceAction: message.bounceAction, choice: choice) }
        }
    }

    /// The JSON of this message, written by hand: this is the response of every send. The
    /// stored `custom` and `moderation` are JSON already and go in as they are.
    func write(to json: inout [UInt8], custom storedCustom: String?, moderation storedModeration: String?) {
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
        if let storedCustom {
            json.append(contentsOf: #","custom":"#.utf8)
            json.append(contentsOf: storedCustom.utf8)
        }
        if showsModeration, let storedModeration {
            json.append(contentsOf: #","moderation":"#.utf8)
            json.append(contentsOf: storedModeration.utf8)
        }
        if let notice { JSONText.appendMember(#","notice":"#, notice, to: &json) }
        if let alert {
            json.append(contentsOf: #","alert":"#.utf8)
            alert.write(to: &json)
        }
        json.append(UInt8(ascii: "}"))
    }

    static func json(_ message: StoredMessage, for identity: Identity, choice: Catalog.Choice, alertActionsEnabled: Bool) -> [UInt8] {
        var json: [UInt8] = []
        json.reserveCapacity(512 + message.text.utf8.count)
        MessageJSON(message, for: identity, choice: choice, alertActionsEnabled: alertActionsEnabled)
            .write(to: &json, custom: message.custom, moderation: message.moderation)
        return json
    }

    /// Whether `identity` may see `message` at all (hidden messages are 404, never 403).
    static func isVisible(_ message: StoredMessage, to identity: Identity) -> Bool {
        MessageVisibility.isVisible(state: message.state, hidden: message.hidden, authorID: message.userID, to: identity.viewer)
    }
}
