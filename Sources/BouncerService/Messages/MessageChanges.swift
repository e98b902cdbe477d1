import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerModeration
import BouncerStore
import Foundation
import HTTPServer

/// Changing: edits, Send Anyway and deletes, each planned from the message as read and applied
/// while the message is still as read (read and planned again when not).
extension MessagesRoutes {
    /// The author's own message, or the error that tells them nothing they may not know.
    static func requireAuthor(_ message: StoredMessage, _ identity: Identity) throws(HTTPError) {
        guard message.userID == identity.userID else {
            guard MessageJSON.isVisible(message, to: identity) else { throw MessageText.notFound }
            throw HTTPError(.forbidden, code: "not_author", detail: "Only the author can do this.")
        }
    }

    /// A ban applies to an edit and a Send Anyway as to a send: a ban refuses them (403), a
    /// shadow ban keeps what they deliver shadowed. Returns whether the sender is shadow banned.
    func checkBan(_ identity: Identity) throws(HTTPError) -> Bool {
        guard let ban = bans.active(identity.userID) else { return false }
        guard ban.shadow else { throw Self.userBanned }
        return true
    }

    func edit(_ request: Request, _ identity: Identity) async throws -> Response {
        let shadowBanned = try checkBan(identity)
        let input = try request.decodeJSON(EditInput.self)
        let message = try await edit(try request.parameter("id"), to: input.text, identity, shadowBanned: shadowBanned,
                                     choice: localization.choice(for: request.head))
        return try respond(message, to: request, identity)
    }

    /// Edits message `id` to `text` as `identity`, by the rules `EditRule` sets out; returns the
    /// message as the edit left it. The API's edit and a Matrix `m.replace` both come here.
    func edit(_ id: String, to text: String, _ identity: Identity, shadowBanned: Bool, choice: Catalog.Choice) async throws -> StoredMessage {
        try MessageText.validate(text, maxLength: settings.value.max_message_length)
        let existing = try await store.message(id: id)
        let channel = existing?.channelID
        let verdict = try await judge.judgeEdit(text, channel: channel, identity)
        let outcome = MessageOutcome(verdict, text: text)
        let alertActionsEnabled = settings.value.bounced_messages_alert_actions_enabled
        let now = Timestamp.now()
        let result = try await change(id, .messageEdited) { (current: StoredMessage) throws(HTTPError) -> MessageChange in
            try Self.requireAuthor(current, identity)
            switch EditRule(current) {
            case .refused:
                throw HTTPError(.conflict, code: "message_deleted", detail: "A deleted message cannot be edited.")
            case .keepsState:
                // A moderator's removal holds: the new text is kept, and the old one in the
                // revisions, for moderators to read; the message stays removed.
                var updated = current
                updated.text = text
                updated.originalText = nil
                updated.edited = true
                updated.updatedAt = now
                return .update(updated, keepRevision: true, flags: [])
            case .judgedAgain(let refusalIsAnError):
                if refusalIsAnError, let action = verdict.action, action.refusesDelivery {
                    throw Self.editRefused(verdict, action, text: text, choice: choice, alertActionsEnabled: alertActionsEnabled)
                }
                var updated = current
                updated.text = outcome.text
                updated.originalText = outcome.originalText
                updated.state = outcome.state
                updated.moderation = outcome.moderation
                updated.bounceAction = outcome.bounceAction
                // Shadowed stays shadowed (its author must not learn of it by editing), and a
                // shadow-banned author's edit is shadowed as their sends are.
                if current.state == .shadowed || shadowBanned, updated.state.isDelivered {
                    updated.state = .shadowed
                    updated.moderation = outcome.moderation ?? current.moderation
                }
                updated.flagged = current.flagged || outcome.flagRule != nil
                updated.edited = true
                updated.updatedAt = now
                return .update(updated, keepRevision: true, flags: outcome.systemFlags(messageID: id, channelID: current.channelID, now: now))
            }
        }
        guard result.found, let message = result.message else { throw MessageText.notFound }
        return message
    }

    /// 422 `edit_refused`: the new text of a message its author believes delivered would be
    /// bounced or removed, so the message is left as it was. The body carries the verdict.
    private static func editRefused(_ verdict: Verdict, _ action: RuleAction, text: String, choice: Catalog.Choice,
                                    alertActionsEnabled: Bool) -> HTTPError {
        var record = ModerationRecord(verdict: verdict, originalText: text, flagged: false)
        record.observed = nil  // the author's answer: observed rules are for moderators
        var extensions: [(name: String, json: String)] = [("moderation", record.json)]
        if action.isBounce, alertActionsEnabled {
            extensions.append(("alert", Alert(bounceAction: action, choice: choice).json))
        }
        return HTTPError(.unprocessableContent, code: "edit_refused",
                         detail: "Moderation refused the new text; the message is unchanged.", extensions: extensions)
    }

    func resend(_ request: Request, _ identity: Identity) async throws -> Response {
        let shadowBanned = try checkBan(identity)
        let id = try request.parameter("id")
        let now = Timestamp.now()
        let result = try await change(id, .messageResent) { (current: StoredMessage) throws(HTTPError) -> MessageChange in
            try Self.requireAuthor(current, identity)
            guard current.state == .bounced else {
                throw HTTPError(.conflict, code: "not_bounced", detail: "Only a bounced message can be sent anyway.")
            }
            var updated = current
            updated.updatedAt = now
            switch SendAnyway(bounceAction: current.bounceAction) {
            case .deliverAndFlag:
                updated.state = shadowBanned ? .shadowed : .delivered
                updated.flagged = true
                let ruleID = ModerationRecord.decode(current.moderation)?.rules.first?.id
                let flag = NewFlag(id: TimeOrderedID.make(), messageID: id, channelID: current.channelID, reporterID: SystemFlag.reporterID,
                                   reason: SystemFlag.bounceOverride, ruleID: ruleID, createdAt: now)
                return .update(updated, keepRevision: false, flags: [flag])
            case .remove:
                updated.state = .removed
                return .update(updated, keepRevision: false, flags: [])
            case .unavailable:
                return .unchanged
            }
        }
        guard result.found, let message = result.message else { throw MessageText.notFound }
        return try respond(message, to: request, identity)
    }

    func delete(_ request: Request, _ identity: Identity) async throws -> Response {
        let hard = try QueryValues.bool(request, "hard") ?? false
        if hard { try Access.require(.admin, identity) }
        try await delete(try request.parameter("id"), identity, hard: hard)
        return Response(status: .noContent)
    }

    /// Deletes message `id` as `identity` (its author, or a moderator; `hard` erases it, for
    /// admins): the API's delete and a Matrix redaction both come here.
    func delete(_ id: String, _ identity: Identity, hard: Bool = false) async throws {
        let now = Timestamp.now()
        let author = identity.role >= .moderator ? try await store.message(id: id)?.userID : nil
        let result = try await change(id, .messageDeleted) { (current: StoredMessage) throws(HTTPError) -> MessageChange in
            if identity.role < .moderator { try Self.requireAuthor(current, identity) }
            // A bounced message was never sent: its author's Delete takes it back. A removed one
            // is a moderation record, which moderators (and an appeal) still read: it becomes a
            // tombstone that nobody else is shown, since nobody else saw the message.
            if hard || current.state == .bounced { return .erase }
            if current.state == .deleted { return .unchanged }
            var updated = current
            if current.state == .removed { updated.hidden = true }
            updated.state = .deleted
            updated.updatedAt = now
            return .update(updated, keepRevision: false, flags: [])
        }
        guard result.found else { throw MessageText.notFound }
        if identity.role >= .moderator && (hard || author.map({ $0 != identity.userID }) ?? true) {
            try await audit.record(identity, "message.delete", "message", id, details: ["hard": String(hard), "author_id": author ?? ""])
        }
    }

    /// Reads message `id`, plans its change (`plan`, a pure function of the message as read), and
    /// applies the plan with its `type` event while the message is still as read. `found` is false
    /// when there is no such message; `message` is the message as the change left it (nil once erased).
    private func change(_ id: String, _ type: EventType, _ plan: (StoredMessage) throws(HTTPError) -> MessageChange)
        async throws -> (found: Bool, message: StoredMessage?) {
        let events = localization.messageEvents
        let changed = try await Replanning.run(
            "change of message \(id)",
            read: { try await store.message(id: id) },
            plan: { current in (current, try plan(current)) },
            apply: { (current: StoredMessage, change: MessageChange) -> Planned<StoredMessage?> in
                let made: [NewEvent]
                switch change {
                case .unchanged: made = []
                case .erase: made = events.ofChange(type, before: current, after: nil)
                case .update(let updated, _, _): made = events.ofChange(type, before: current, after: updated)
                }
                return try await store.apply(change, to: current, events: made)
            })
        guard let changed else { return (false, nil) }
        return (true, changed)
    }
}
