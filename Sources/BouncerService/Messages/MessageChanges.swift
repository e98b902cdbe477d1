import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerModeration
import BouncerStore
import Foundation
import HTTPServer

/// Changing: edits, Send Anyway and deletes, each decided inside the store's transaction.
extension MessagesRoutes {
    /// The author's own message, or the error that tells them nothing they may not know.
    static func requireAuthor(_ message: StoredMessage, _ identity: Identity) throws(HTTPError) {
        guard message.userID == identity.userID else {
            guard MessageJSON.isVisible(message, to: identity) else { throw notFound }
            throw HTTPError(.forbidden, code: "not_author", detail: "Only the author can do this.")
        }
    }

    func edit(_ request: Request, _ identity: Identity) async throws -> Response {
        let input = try request.decodeJSON(EditInput.self)
        try MessageText.validate(input.text, maxLength: settings.value.max_message_length)
        let id = request.parameter("id")
        let existing = try await store.message(id: id)
        let channel = existing?.channelID
        let verdict = await judge.judgeEdit(input.text, channel: channel, identity)
        let outcome = Outcome(verdict, text: input.text)
        let choice = localization.choice(for: request.head)
        let now = Timestamp.now()
        let result = try await store.change(id) { (current: StoredMessage) throws(HTTPError) -> MessageChange in
            try Self.requireAuthor(current, identity)
            guard current.state != .deleted else {
                throw HTTPError(.conflict, code: "message_deleted", detail: "A deleted message cannot be edited.")
            }
            if current.state.isDelivered, let action = verdict.action, action.refusesDelivery {
                var record = ModerationRecord(verdict: verdict, originalText: input.text, flagged: false)
                record.observed = nil  // the author's answer: observed rules are for moderators
                var extensions: [(name: String, json: String)] = [("moderation", record.json)]
                if action.isBounce, settings.value.bounced_messages_alert_actions_enabled {
                    extensions.append(("alert", Alert(bounceAction: action, choice: choice).json))
                }
                throw HTTPError(.unprocessableContent, code: "edit_refused",
                                detail: "Moderation refused the new text; the message is unchanged.", extensions: extensions)
            }
            var updated = current
            updated.text = outcome.text
            updated.originalText = outcome.originalText
            updated.state = outcome.state
            updated.moderation = outcome.moderation
            updated.bounceAction = outcome.bounceAction
            updated.flagged = current.flagged || outcome.flagRule != nil
            updated.edited = true
            updated.updatedAt = now
            return .update(updated, keepRevision: true, flags: outcome.systemFlags(messageID: id, channelID: current.channelID, now: now))
        } events: { [events = localization.messageEvents] before, after in events.ofChange(.messageEdited, before: before, after: after) }
        guard result.found, let message = result.message else { throw Self.notFound }
        return try respond(message, to: request, identity)
    }

    func resend(_ request: Request, _ identity: Identity) async throws -> Response {
        let id = request.parameter("id")
        let now = Timestamp.now()
        let result = try await store.change(id) { (current: StoredMessage) throws(HTTPError) -> MessageChange in
            try Self.requireAuthor(current, identity)
            guard current.state == .bounced else {
                throw HTTPError(.conflict, code: "not_bounced", detail: "Only a bounced message can be sent anyway.")
            }
            var updated = current
            updated.updatedAt = now
            switch SendAnyway(bounceAction: current.bounceAction) {
            case .deliverAndFlag:
                updated.state = .delivered
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
        } events: { [events = localization.messageEvents] before, after in events.ofChange(.messageResent, before: before, after: after) }
        guard result.found, let message = result.message else { throw Self.notFound }
        return try respond(message, to: request, identity)
    }

    func delete(_ request: Request, _ identity: Identity) async throws -> Response {
        let hard = try QueryValues.bool(request, "hard") ?? false
        if hard { try Access.require(.admin, identity) }
        let now = Timestamp.now()
        let author = identity.role >= .moderator ? try await store.message(id: request.parameter("id"))?.userID : nil
        let result = try await store.change(request.parameter("id")) { (current: StoredMessage) throws(HTTPError) -> MessageChange in
            if identity.role < .moderator { try Self.requireAuthor(current, identity) }
            if hard || current.state.isRefused { return .erase }
            if current.state == .deleted { return .unchanged }
            var updated = current
            updated.state = .deleted
            updated.updatedAt = now
            return .update(updated, keepRevision: false, flags: [])
        } events: { [events = localization.messageEvents] before, after in events.ofChange(.messageDeleted, before: before, after: after) }
        guard result.found else { throw Self.notFound }
        if identity.role >= .moderator && (hard || author.map({ $0 != identity.userID }) ?? true) {
            try await audit.record(identity, "message.delete", "message", request.parameter("id"),
                                   details: ["hard": String(hard), "author_id": author ?? ""])
        }
        return Response(status: .noContent)
    }
}
