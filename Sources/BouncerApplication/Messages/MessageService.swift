import BouncerDomain
import BouncerIdentity
import BouncerModeration
import BouncerStore
import Foundation

/// A message to moderate and store, whoever brings it: the API's send, a Matrix homeserver's
/// event, Stream's hook. Its id and channel are checked by the door it came through.
package struct Submission: Sendable {
    package var text: String
    package var channelID: String
    package var id: String?
    package var parentID: String?
    /// `custom` as JSON text.
    package var custom: String?
    /// What a taken `id` does. The API's send answers 409 `id_conflict`, as a client chose the id
    /// and retries with it. A chat server's message is judged whatever its id (an id is no way
    /// around moderation): when another message holds the id, it is stored under one of
    /// Bouncer's own instead.
    package var ownIDWhenTaken = false

    package init(text: String, channelID: String, id: String? = nil, parentID: String? = nil, custom: String? = nil) {
        self.text = text
        self.channelID = channelID
        self.id = id
        self.parentID = parentID
        self.custom = custom
    }
}

/// What became of a submission: the store's outcome and the verdict that decided it.
package struct Submitted: Sendable {
    package var outcome: SendOutcome
    package var verdict: Verdict
}

/// The message use cases, whoever asks: sending (moderated on the caller's queue, written in the
/// next group commit), editing, Send Anyway and deleting. The API's routes and the chat servers'
/// hooks call them alike, and tell their refusals by `MessageError`'s cases.
///
/// A class, not a struct: every send's closures capture it, and a struct of references was
/// copied, and each reference retained and released, at every capture.
package final class MessageService: Sendable {
    package let store: any MessageRepository & FlagRepository
    package let judge: MessageJudge
    package let settings: LiveSettings
    package let events: MessageEvents
    package let bans: BanList
    package let audit: Audit
    package let metrics: Metrics

    package init(store: any MessageRepository & FlagRepository, judge: MessageJudge, settings: LiveSettings, events: MessageEvents, bans: BanList,
         audit: Audit, metrics: Metrics) {
        self.store = store
        self.judge = judge
        self.settings = settings
        self.events = events
        self.bans = bans
        self.audit = audit
        self.metrics = metrics
    }

    /// Moderates `submission` from `identity` and stores it in the next group commit, then calls
    /// `completion` (on the store's thread). `ban` is the sender's ban in force, which the caller
    /// looked up: a ban is refused here (`userBanned`), a shadow ban stores the message
    /// shadowed.
    /// `onVerdict` learns the verdict as soon as it is known, before the write.
    package func submit(_ submission: Submission, _ identity: Identity, ban: StoredBan?, onVerdict: (@Sendable (Verdict) -> Void)? = nil,
                completion: @escaping @Sendable (Result<Submitted, any Error>) -> Void) throws(MessageError) {
        if let ban, !ban.shadow { throw .userBanned }
        try MessageText.validate(submission.text, maxLength: settings.value.max_message_length)
        if let custom = submission.custom, custom.utf8.count > MessageText.maxCustomBytes { throw .customTooLarge }
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
    package func submit(_ submission: Submission, _ identity: Identity, ban: StoredBan?) async throws -> Submitted {
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
        store.send(message, flags: flags, events: events.ofSend(message, flags: flags), sender: sender) { result in
            guard ownIDWhenTaken, case .success(.conflict) = result else { return completion(result) }
            var renamed = message
            renamed.id = TimeOrderedID.make()
            self.store(renamed, outcome, sender: sender, ownIDWhenTaken: false, completion)
        }
    }

    /// The author's own message, or the error that tells them nothing they may not know.
    package static func requireAuthor(_ message: StoredMessage, _ identity: Identity) throws(MessageError) {
        guard message.userID == identity.userID else {
            guard MessageJSON.isVisible(message, to: identity) else { throw .notFound }
            throw .notAuthor
        }
    }

    /// A ban applies to an edit and a Send Anyway as to a send: a ban refuses them, a
    /// shadow ban keeps what they deliver shadowed. Returns whether the sender is shadow banned.
    package func checkBan(_ identity: Identity) throws(MessageError) -> Bool {
        guard let ban = bans.active(identity.userID) else { return false }
        guard ban.shadow else { throw .userBanned }
        return true
    }

    /// Edits message `id` to `text` as `identity`, by the rules `EditRule` sets out; returns the
    /// message as the edit left it. The API's edit and a Matrix `m.replace` both come here.
    package func edit(_ id: String, to text: String, _ identity: Identity, shadowBanned: Bool) async throws -> StoredMessage {
        try MessageText.validate(text, maxLength: settings.value.max_message_length)
        guard let existing = try await store.message(id: id) else { throw MessageError.notFound }
        // Judged once, in the message's channel: a change planned again after another write keeps
        // the verdict, as a message never changes channel.
        let verdict = try await judge.judgeEdit(text, channel: existing.channelID, identity)
        let outcome = MessageOutcome(verdict, text: text)
        let now = Timestamp.now()
        let result = try await change(id, .messageEdited, read: existing) { (current: StoredMessage) throws(MessageError) -> MessageChange in
            try Self.requireAuthor(current, identity)
            switch EditRule(current) {
            case .refused:
                throw .deleted
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
                    throw .editRefused(verdict, action, text: text)
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
        guard result.found, let message = result.message else { throw MessageError.notFound }
        return message
    }

    /// Send Anyway of message `id`, bounced, by its author `identity`: delivered and flagged, or
    /// removed, as the rule that bounced it says. Returns the message as it left it.
    package func resend(_ id: String, _ identity: Identity) async throws -> StoredMessage {
        let shadowBanned = try checkBan(identity)
        let now = Timestamp.now()
        let result = try await change(id, .messageResent) { (current: StoredMessage) throws(MessageError) -> MessageChange in
            try Self.requireAuthor(current, identity)
            guard current.state == .bounced else { throw .notBounced }
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
        guard result.found, let message = result.message else { throw MessageError.notFound }
        return message
    }

    /// Deletes message `id` as `identity` (its author, or a moderator; `hard` erases it, for
    /// admins): the API's delete and a Matrix redaction both come here.
    package func delete(_ id: String, _ identity: Identity, hard: Bool = false) async throws {
        let now = Timestamp.now()
        // A moderator's delete of another's message, or any hard delete, is audited in the
        // delete's own transaction.
        let audit = { (current: StoredMessage) -> AuditEntry? in
            guard identity.role >= .moderator, hard || current.userID != identity.userID else { return nil }
            return self.audit.entry(identity, "message.delete", "message", id, details: ["hard": String(hard), "author_id": current.userID])
        }
        let result = try await change(id, .messageDeleted, audit: audit) { (current: StoredMessage) throws(MessageError) -> MessageChange in
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
        guard result.found else { throw MessageError.notFound }
    }

    /// Plans the change of message `id` (`plan`, a pure function of the message as read, from
    /// `read` when the caller has just read it) and applies it with its `type` event and the
    /// `audit` entry it calls for while the message is still as read; reads and plans again when
    /// not. `found` is false when there is no such message; `message` is the message as the change
    /// left it (nil once erased).
    private func change(_ id: String, _ type: EventType, read: StoredMessage? = nil,
                        audit: (StoredMessage) -> AuditEntry? = { _ in nil },
                        _ plan: (StoredMessage) throws(MessageError) -> MessageChange) async throws -> (found: Bool, message: StoredMessage?) {
        let events = self.events
        var unused = read
        let changed = try await Replanning.run(
            "change of message \(id)",
            read: { () async throws -> StoredMessage? in
                if let current = unused {
                    unused = nil
                    return current
                }
                return try await store.message(id: id)
            },
            plan: { current in (current, try plan(current), audit(current)) },
            apply: { (current: StoredMessage, change: MessageChange, entry: AuditEntry?) -> Planned<StoredMessage?> in
                let made: [NewEvent]
                switch change {
                case .unchanged: made = []
                case .erase: made = events.ofChange(type, before: current, after: nil)
                case .update(let updated, _, _): made = events.ofChange(type, before: current, after: updated)
                }
                return try await store.apply(change, to: current, events: made, audit: entry)
            })
        guard let changed else { return (false, nil) }
        return (true, changed)
    }
}
