import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerModeration
import BouncerStore
import Foundation
import HTTPServer

/// A message to moderate and store, whoever brings it: the API's send, a Matrix homeserver's
/// event, Stream's hook. Its id and channel are checked by the door it came through.
struct Submission: Sendable {
    var text: String
    var channelID: String
    var id: String?
    var parentID: String?
    /// `custom` as JSON text.
    var custom: String?
    /// What a taken `id` does. The API's send answers 409 `id_conflict`, as a client chose the id
    /// and retries with it. A chat server's message is judged whatever its id (an id is no way
    /// around moderation): when another message holds the id, it is stored under one of
    /// Bouncer's own instead.
    var ownIDWhenTaken = false
}

/// What became of a submission: the store's outcome and the verdict that decided it.
struct Submitted: Sendable {
    var outcome: SendOutcome
    var verdict: Verdict
}

/// Sending: moderation on the connection's queue, the write in the next group commit.
extension MessagesRoutes {
    static let userBanned = HTTPError(.forbidden, code: "user_banned", detail: "You are banned from sending messages.")

    /// Checks and moderates on the connection's queue, writes in the next group commit, and
    /// answers from the connection's queue once that is committed: no task, no extra hops.
    func send(_ request: Request, _ identity: Identity, _ responder: Responder) throws {
        let ban = bans.active(identity.userID)
        if let ban, !ban.shadow { throw Self.userBanned }
        let channelID = try IDValues.channelID(request)
        let input = try SendInput(request)
        if let id = input.id { try IDValues.messageID(id, field: "id") }
        if let parent = input.parentID { try IDValues.messageID(parent, field: "parent_id") }
        let submission = Submission(text: input.text, channelID: channelID, id: input.id, parentID: input.parentID, custom: input.custom)
        // The store's writer calls back once the write is committed, and should only hand the
        // outcome over: the response is built on the connection's loop.
        try submit(submission, identity, ban: ban) { result in
            responder.respond { try self.answer(result, to: request, identity) }
        }
    }

    /// The response to a send, once its write is known.
    private func answer(_ result: Result<Submitted, any Error>, to request: Request, _ identity: Identity) throws -> Response {
        switch try result.get().outcome {
        case .created(let stored):
            return try respond(stored, to: request, identity, status: .created)
        case .replayed(let stored):
            return try respond(stored, to: request, identity)
        case .conflict:
            throw HTTPError(.conflict, code: "id_conflict", detail: "The message id is taken by another message.").keyed("messages.id_taken")
        case .parentNotFound:
            // Well formed, but pointing at nothing this sender can reply to.
            throw HTTPError(.unprocessableContent, code: "parent_not_found",
                            detail: "`parent_id` is not a message of this channel.").keyed("messages.parent")
        }
    }

    /// Moderates `submission` from `identity` and stores it in the next group commit, then calls
    /// `completion` (on the store's thread). `ban` is the sender's ban in force, which the caller
    /// looked up: a ban is refused here (403 `user_banned`), a shadow ban stores the message
    /// shadowed.
    /// `onVerdict` learns the verdict as soon as it is known, before the write.
    func submit(_ submission: Submission, _ identity: Identity, ban: StoredBan?, onVerdict: (@Sendable (Verdict) -> Void)? = nil,
                completion: @escaping @Sendable (Result<Submitted, any Error>) -> Void) throws(HTTPError) {
        if let ban, !ban.shadow { throw Self.userBanned }
        try MessageText.validate(submission.text, maxLength: settings.value.max_message_length)
        if let custom = submission.custom, custom.utf8.count > MessageText.maxCustomBytes {
            throw HTTPError.badRequest("invalid_field", "`custom` is larger than \(MessageText.maxCustomBytes) bytes.").keyed("field.too_large", "custom", MessageText.maxCustomBytes)
        }
        judge.judgeSend(submission.text, channel: submission.channelID, identity) { judged in
            switch judged {
            case .success(let verdict):
                onVerdict?(verdict)
                self.write(verdict, submission, shadowBanned: ban != nil, identity, completion)
            case .failure(let error):
                // Not judged, so not stored: the send fails as the store's failures do (503).
                completion(.failure(error))
            }
        }
    }

    /// `submit`, awaited: for the integrations' routes, which are tasks already.
    func submit(_ submission: Submission, _ identity: Identity, ban: StoredBan?) async throws -> Submitted {
        try await withCheckedThrowingContinuation { continuation in
            do {
                try submit(submission, identity, ban: ban) { continuation.resume(with: $0) }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Writes a judged message in the next group commit, and calls back once that is committed.
    private func write(_ verdict: Verdict, _ submission: Submission, shadowBanned: Bool, _ identity: Identity,
                       _ completion: @escaping @Sendable (Result<Submitted, any Error>) -> Void) {
        metrics.add(ServiceMetric.messages, verdict.action?.rawValue ?? "none")
        var outcome = MessageOutcome(verdict, text: submission.text)
        if shadowBanned {
            // A shadow ban: stored, and to its author as good as delivered; nobody else sees it.
            outcome.state = .shadowed
            outcome.bounceAction = nil
        }
        let now = Timestamp.now()
        let id = submission.id ?? TimeOrderedID.make()
        let channelID = submission.channelID
        let message = StoredMessage(id: id, channelID: channelID, userID: identity.userID, text: outcome.text,
                                    originalText: outcome.originalText, state: outcome.state, parentID: submission.parentID,
                                    custom: submission.custom, moderation: outcome.moderation, bounceAction: outcome.bounceAction,
                                    flagged: outcome.flagRule != nil, edited: false, createdAt: now, updatedAt: now)
        store(message, outcome, sender: identity.viewer, ownIDWhenTaken: submission.ownIDWhenTaken) { result in
            completion(result.map { Submitted(outcome: $0, verdict: verdict) })
        }
    }

    /// Stores a judged message in the next group commit; once more under a new id of Bouncer's
    /// own when `ownIDWhenTaken` and another message holds its id.
    private func store(_ message: StoredMessage, _ outcome: MessageOutcome, sender: Viewer, ownIDWhenTaken: Bool,
                       _ completion: @escaping @Sendable (Result<SendOutcome, any Error>) -> Void) {
        let flags = outcome.systemFlags(messageID: message.id, channelID: message.channelID, now: message.createdAt)
        store.send(message, flags: flags, events: localization.messageEvents.ofSend(message, flags: flags), sender: sender) { result in
            guard ownIDWhenTaken, case .success(.conflict) = result else { return completion(result) }
            var renamed = message
            renamed.id = TimeOrderedID.make()
            self.store(renamed, outcome, sender: sender, ownIDWhenTaken: false, completion)
        }
    }
}
