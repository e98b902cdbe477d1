import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerModeration
import BouncerStore
import Foundation
import HTTPServer
import JSON

/// `/v1/channels/{channel_id}/messages` and `/v1/messages/{id}...`: sending, bouncing, Send
/// Anyway, editing, deleting, and the actions a caller may take.
struct MessagesRoutes: Sendable {
    let store: any MessageRepository & FlagRepository
    let rules: Rules
    let settings: LiveSettings
    let localization: Localization
    let bans: BanList
    let audit: Audit
    let metrics: Metrics

    static let maxCustomBytes = 5 * 1024

    /// A send's body, read with the strict parser (every send parses one, so it skips the
    /// general decoder): `{"id"?, "text", "parent_id"?, "custom"?}`; other members are ignored.
    struct SendInput {
        var id: String?
        var text: String
        var parentID: String?
        /// `custom` as compact JSON text.
        var custom: String?

        static let notAnObject = HTTPError.badRequest("invalid_json", "The request body is not a valid JSON object.")

        init(_ request: Request) throws(HTTPError) {
            // The strict parser bounds the depth itself: the body is read once.
            try request.checkJSONBody(checkingDepth: false)
            let notAnObject = Self.notAnObject
            let parsed: JSONValue
            do {
                parsed = try StrictJSONParser.parse(request.body, maxDepth: request.maxJSONDepth)
            } catch {
                throw error.isTooDeep ? request.jsonTooDeep : notAnObject
            }
            guard case .object(let members) = parsed else { throw notAnObject }
            func optionalString(_ name: String) throws(HTTPError) -> String? {
                switch members[name] {
                case nil, .null?: return nil
                case .string(let value)?: return value
                default: throw .badRequest("invalid_field", "The field `\(name)` has the wrong type.")
                }
            }
            guard let text = try optionalString("text") else { throw .badRequest("invalid_field", "The field `text` is required.") }
            self.text = text
            id = try optionalString("id")
            parentID = try optionalString("parent_id")
            switch members["custom"] {
            case nil, .null?: custom = nil
            case .object?: custom = members["custom"]!.serialized
            default: throw .badRequest("invalid_field", "`custom` must be an object.")
            }
        }
    }

    struct EditInput: Decodable {
        var text: String
    }

    /// What a verdict does to a message: its state, its text, and the system flag it files.
    struct Outcome {
        var state: MessageState
        var text: String
        var originalText: String?
        var bounceAction: RuleAction?
        var flagRule: String?
        var moderation: String?

        init(_ verdict: Verdict, text: String) {
            self.text = text
            state = MessageState(after: verdict.action)
            guard let action = verdict.action else { return }
            if action.filesSystemFlag { flagRule = verdict.decidingRule?.ruleID }
            if action == .maskFlag {
                self.text = verdict.maskedText ?? text
                originalText = text
            }
            if action.isBounce { bounceAction = action }
            moderation = ModerationRecord(verdict: verdict, originalText: text, flagged: flagRule != nil).json
        }

        func systemFlags(messageID: String, channelID: String, now: String) -> [NewFlag] {
            guard let flagRule else { return [] }
            return [NewFlag(id: TimeOrderedID.make(), messageID: messageID, channelID: channelID, reporterID: SystemFlag.reporterID,
                            reason: SystemFlag.ruleMatch, ruleID: flagRule, createdAt: now)]
        }
    }

    func register(in routes: inout Routes) {
        let handlers = self
        routes.addCallback("POST", "/v1/channels/{channel_id}/messages", .user, limitedAsSend: true) { request, identity, responder in
            try handlers.send(request, identity, responder)
        }
        routes.add("GET", "/v1/channels/{channel_id}/messages", .user) { request, identity in
            try await handlers.channel(request, identity)
        }
        routes.add("GET", "/v1/messages/{id}", .user) { request, identity in
            let message = try await handlers.visibleMessage(request, identity)
            return try handlers.respond(message, to: request, identity)
        }
        // An edit or a Send Anyway is a send too, and spends from the same rate.
        routes.add("PATCH", "/v1/messages/{id}", .user, limitedAsSend: true) { request, identity in
            try await handlers.edit(request, identity)
        }
        routes.add("POST", "/v1/messages/{id}/resend", .user, limitedAsSend: true) { request, identity in
            try await handlers.resend(request, identity)
        }
        routes.add("DELETE", "/v1/messages/{id}", .user) { request, identity in
            try await handlers.delete(request, identity)
        }
        routes.add("GET", "/v1/messages/{id}/actions", .user) { request, identity in
            try await handlers.actions(request, identity)
        }
        routes.add("GET", "/v1/messages/{id}/revisions", .moderator) { request, _ in
            let id = request.parameters["id"] ?? ""
            guard try await handlers.store.message(id: id) != nil else { throw Self.notFound }
            struct Revision: Encodable {
                var revision: Int
                var text: String
                var state: MessageState
                var created_at: String
            }
            let limit = try Pagination.limit(request)
            let after = try Pagination.after(request).map { key throws(HTTPError) -> Int in
                guard let revision = Int(key) else { throw HTTPError.badRequest("invalid_cursor", "`cursor` is not one this service gave out.") }
                return revision
            } ?? 0
            var found = try await handlers.store.revisions(of: id, after: after, limit: limit + 1)
            var next: String?
            if found.count > limit {
                found.removeLast()
                next = found.last.map { Pagination.cursor(after: String($0.revision)) }
            }
            let revisions = found.map { Revision(revision: $0.revision, text: $0.text, state: $0.state, created_at: $0.createdAt) }
            return try Response.encoded(ListResponse(name: "revisions", items: revisions, nextCursor: next))
        }
    }

    static let notFound = HTTPError(.notFound, code: "message_not_found", detail: "There is no such message.")

    // MARK: - Sending

    /// Checks and moderates on the connection's queue, writes in the next group commit, and
    /// answers from the connection's queue once that is committed: no task, no extra hops.
    private func send(_ request: Request, _ identity: Identity, _ responder: Responder) throws {
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
        let verdict = rules.engine.check(input.text, channel: channelID)
        metrics.add("bouncer_messages_total", label: verdict.action?.rawValue ?? "none")
        for rule in verdict.rules { metrics.add("bouncer_rule_matches_total", label: rule.ruleID) }
        var outcome = Outcome(verdict, text: input.text)
        if ban != nil {
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
        store.send(message, flags: outcome.systemFlags(messageID: id, channelID: channelID, now: now), sender: sender) { result in
            responder.respond { try answer(result.get()) }
        }
    }

    // MARK: - Reading

    private func channel(_ request: Request, _ identity: Identity) async throws -> Response {
        let channelID = try Self.channelID(request)
        let limit = try Pagination.limit(request)
        var before: Int64?
        if let key = try Pagination.after(request) {
            guard let sequence = Int64(key) else { throw HTTPError.badRequest("invalid_cursor", "`cursor` is not one this service gave out.") }
            before = sequence
        }
        var found = try await store.channelMessages(channelID, before: before, limit: limit + 1,
                                                    viewer: identity.viewer)
        var next: String?
        if found.count > limit {
            found.removeLast()
            next = found.last.map { Pagination.cursor(after: String($0.sequence)) }
        }
        let choice = localization.choice(for: request.head)
        let alertActionsEnabled = settings.value.bounced_messages_alert_actions_enabled
        // Newest page first, each page in chronological order.
        var json: [UInt8] = Array(#"{"messages":["#.utf8)
        for (index, message) in found.reversed().enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.append(contentsOf: MessageJSON.json(message, for: identity, choice: choice, alertActionsEnabled: alertActionsEnabled))
        }
        json.append(contentsOf: #"],"next_cursor":"#.utf8)
        json.append(contentsOf: (next.map(JSONText.quoted) ?? "null").utf8)
        json.append(UInt8(ascii: "}"))
        var response = Response.json(.ok, json)
        Localization.mark(&response, choice)
        return response
    }

    private func visibleMessage(_ request: Request, _ identity: Identity) async throws -> StoredMessage {
        guard let message = try await store.message(id: request.parameters["id"] ?? ""),
              MessageJSON.isVisible(message, to: identity) else { throw Self.notFound }
        return message
    }

    private func respond(_ message: StoredMessage, to request: Request, _ identity: Identity, status: HTTPStatus = .ok) throws -> Response {
        let choice = localization.choice(for: request.head)
        var response = Response.json(status, MessageJSON.json(message, for: identity, choice: choice,
                                                              alertActionsEnabled: settings.value.bounced_messages_alert_actions_enabled))
        Localization.mark(&response, choice)
        return response
    }

    // MARK: - Changing

    /// The author's own message, or the error that tells them nothing they may not know.
    private static func requireAuthor(_ message: StoredMessage, _ identity: Identity) throws(HTTPError) {
        guard message.userID == identity.userID else {
            guard MessageJSON.isVisible(message, to: identity) else { throw notFound }
            throw HTTPError(.forbidden, code: "not_author", detail: "Only the author can do this.")
        }
    }

    private func edit(_ request: Request, _ identity: Identity) async throws -> Response {
        let input = try request.decodeJSON(EditInput.self)
        try MessageText.validate(input.text, maxLength: settings.value.max_message_length)
        let id = request.parameters["id"] ?? ""
        let existing = try await store.message(id: id)
        let channel = existing?.channelID
        let verdict = rules.engine.check(input.text, channel: channel)
        let outcome = Outcome(verdict, text: input.text)
        let choice = localization.choice(for: request.head)
        let now = Timestamp.now()
        let result = try await store.change(id) { (current: StoredMessage) throws(HTTPError) -> MessageChange in
            try Self.requireAuthor(current, identity)
            guard current.state != .deleted else {
                throw HTTPError(.conflict, code: "message_deleted", detail: "A deleted message cannot be edited.")
            }
            if current.state.isDelivered, let action = verdict.action, action.refusesDelivery {
                var extensions: [(name: String, json: String)] = [("moderation", ModerationRecord(verdict: verdict, originalText: input.text, flagged: false).json)]
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
        }
        guard result.found, let message = result.message else { throw Self.notFound }
        return try respond(message, to: request, identity)
    }

    private func resend(_ request: Request, _ identity: Identity) async throws -> Response {
        let id = request.parameters["id"] ?? ""
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
        }
        guard result.found, let message = result.message else { throw Self.notFound }
        return try respond(message, to: request, identity)
    }

    private func delete(_ request: Request, _ identity: Identity) async throws -> Response {
        let hard = try QueryValues.bool(request, "hard") ?? false
        if hard && identity.role < .admin {
            throw HTTPError(.forbidden, code: "forbidden", detail: "This needs the admin role.", detailArguments: ["admin"])
        }
        let now = Timestamp.now()
        let author = identity.role >= .moderator ? try await store.message(id: request.parameters["id"] ?? "")?.userID : nil
        let result = try await store.change(request.parameters["id"] ?? "") { (current: StoredMessage) throws(HTTPError) -> MessageChange in
            if identity.role < .moderator { try Self.requireAuthor(current, identity) }
            if hard || current.state.isRefused { return .erase }
            if current.state == .deleted { return .unchanged }
            var updated = current
            updated.state = .deleted
            updated.updatedAt = now
            return .update(updated, keepRevision: false, flags: [])
        }
        guard result.found else { throw Self.notFound }
        if identity.role >= .moderator && (hard || author.map({ $0 != identity.userID }) ?? true) {
            try await audit.record(identity, "message.delete", "message", request.parameters["id"] ?? "",
                                   details: ["hard": String(hard), "author_id": author ?? ""])
        }
        return Response(status: .noContent)
    }

    // MARK: - Actions

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

    private func actions(_ request: Request, _ identity: Identity) async throws -> Response {
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

    // MARK: - Ids

    static func channelID(_ request: Request) throws(HTTPError) -> String {
        let id = request.parameters["channel_id"] ?? ""
        guard ChannelPattern.isChannelID(id) else { throw .badRequest("invalid_field", "The channel id \(ChannelPattern.invalidIDDetail)") }
        return id
    }

    static func validateMessageID(_ id: String, field: String) throws(HTTPError) {
        let bytes = id.utf8
        guard (1...100).contains(bytes.count), bytes.allSatisfy({ byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95 || byte == 45
        }) else {
            throw .badRequest("invalid_field", "`\(field)` must be 1-100 characters of A-Z a-z 0-9 _ -.")
        }
    }
}
