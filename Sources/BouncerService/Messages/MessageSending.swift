import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerModeration
import BouncerStore
import Foundation
import HTTPServer

/// Sending: moderation on the connection's queue, the write in the next group commit.
extension MessagesRoutes {
    /// Checks and moderates on the connection's queue, writes in the next group commit, and
    /// answers from the connection's queue once that is committed: no task, no extra hops.
    func send(_ request: Request, _ identity: Identity, _ responder: Responder) throws {
        let ban = bans.active(identity.userID)
        if let ban, !ban.shadow {
            throw HTTPError(.forbidden, code: "user_banned", detail: "You are banned from sending messages.")
        }
        let channelID = try Self.channelID(request)
        let input = try SendInput(request)
        try MessageText.validate(input.text, maxLength: settings.value.max_message_length)
        if let id = input.id { try Self.validateMessageID(id, field: "id") }
        if let parent = input.parentID { try Self.validateMessageID(parent, field: "parent_id") }
        let custom = input.custom
        if let custom, custom.utf8.count > Self.maxCustomBytes {
            throw HTTPError.badRequest("invalid_field", "`custom` is larger than \(Self.maxCustomBytes) bytes.")
        }
        judge.judgeSend(input.text, channel: channelID, identity) { verdict in
            self.write(verdict, input, custom: custom, channelID: channelID, shadowBanned: ban != nil, request, identity, responder)
        }
    }

    /// Writes a judged message in the next group commit, and answers once that is committed.
    private func write(_ verdict: Verdict, _ input: SendInput, custom: String?, channelID: String, shadowBanned: Bool,
                       _ request: Request, _ identity: Identity, _ responder: Responder) {
        metrics.add("bouncer_messages_total", label: verdict.action?.rawValue ?? "none")
        var outcome = Outcome(verdict, text: input.text)
        if shadowBanned {
            // A shadow ban: stored, and to its author as good as delivered; nobody else sees it.
            outcome.state = .shadowed
            outcome.bounceAction = nil
        }
        let now = Timestamp.now()
        let id = input.id ?? TimeOrderedID.make()
        let message = StoredMessage(id: id, channelID: channelID, userID: identity.userID, text: outcome.text,
                                    originalText: outcome.originalText, state: outcome.state, parentID: input.parentID,
                                    custom: custom, moderation: outcome.moderation, bounceAction: outcome.bounceAction,
                                    flagged: outcome.flagRule != nil, edited: false, createdAt: now, updatedAt: now)
        let sender = identity.viewer
        // Made here, so that the store's writer, which calls back once the write is committed,
        // only hands the outcome over instead of copying the request and routes again.
        let answer: @Sendable (SendOutcome) throws -> Response = { outcome in
            switch outcome {
            case .created(let stored):
                return try self.respond(stored, to: request, identity, status: .created)
            case .replayed(let stored):
                return try self.respond(stored, to: request, identity)
            case .conflict:
                throw HTTPError(.conflict, code: "id_conflict", detail: "The message id is taken by another message.")
            case .parentNotFound:
                // Well formed, but pointing at nothing this sender can reply to.
                throw HTTPError(.unprocessableContent, code: "parent_not_found",
                                detail: "`parent_id` is not a message of this channel.")
            }
        }
        let flags = outcome.systemFlags(messageID: id, channelID: channelID, now: now)
        store.send(message, flags: flags, events: localization.messageEvents.ofSend(message, flags: flags), sender: sender) { result in
            responder.respond { try answer(result.get()) }
        }
    }
}
