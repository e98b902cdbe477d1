import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerStore
import Foundation
import HTTPServer
import JSON

/// `/v1/integrations/matrix/{callback}`: Bouncer as the spam checker of a Matrix homeserver,
/// through Synapse's `synapse-http-antispam` module. A message is judged as a send to its room
/// would be (rules, rate rules, bans, send rates, events, statistics, the review queue) and
/// stored under its event id; an edit as an edit; a redaction as a delete. Any 2xx allows; a
/// refusal carries only Matrix's fields (`errcode`, `error`, `retry_after_ms`), which the module
/// hands to Synapse as they are: any other field (a problem's `code`) makes Synapse fail while
/// answering its client.
struct MatrixRoutes: Sendable {
    let context: IntegrationContext
    let rooms: MatrixRooms

    static let pathPrefix = "/v1/integrations/matrix/"
    /// Events nest their content; a client may nest more than an API body does.
    static let maxDepth = 64

    func register(in routes: inout Routes) {
        routes.group("/v1/integrations/matrix") { group in
            let handlers = self
            group.integration("POST", "/{callback}", .async { request in try await handlers.answer(request) })
    

        }

    }

    private func answer(_ request: Request) async throws -> Response {
        guard let secret = context.integrations.matrixSecret, !secret.isEmpty else {
            throw HTTPError.notFound("integration_not_configured", "The Matrix integration is not configured (--matrix-secret).").keyed("matrix.not_configured")
        }
        try Self.authenticate(request, secret: secret)
        try request.checkJSONBody(checkingDepth: false)
        let body: JSONValue
        do {
            body = try StrictJSONParser.parse(request.body, maxDepth: Self.maxDepth)
        } catch {
            throw HTTPError.badRequest("invalid_json", "The request body is not valid JSON.")
        }
        let callback = try MatrixCallback(name: try request.parameter("callback"), body: body)
        let choice = context.localization.choice(for: request.head)
        let (kind, response): (String, Response)
        switch callback {
        case .ping(let id):
            var json: [UInt8] = []
            JSONText.appendMember(#"{"id":"#, id, to: &json)
            json.append(contentsOf: #","status":"ok"}"#.utf8)
            return .json(.ok, json)
        case .unmoderated:
            (kind, response) = ("unmoderated", Self.allowed)
        case .otherEvent(let eventKind):
            (kind, response) = (eventKind, Self.allowed)
        case .userAction(let user):
            (kind, response) = ("user_action", isBanned(user) ? Self.banned(choice) : Self.allowed)
        case .message(let message):
            (kind, response) = ("message", try await moderate(message, choice))
        case .edit(let message, let replaces):
            (kind, response) = ("edit", try await edit(message, replacing: replaces, choice))
        case .redaction(let sender, let roomID, let redacts):
            (kind, response) = ("redaction", try await redact(redacts, by: sender, in: roomID))
        }
        let answer = response.status.code < 300 ? "allowed" : response.status.code == 503 ? "unavailable" : "refused"
        context.metrics.add(ServiceMetric.matrixCallbacks, kind, answer)
        return response
    }

    /// The module's `Authorization: Bearer <secret>`, compared in constant time.
    private static func authenticate(_ request: Request, secret: String) throws(HTTPError) {
        let presented = request.headers["authorization"].flatMap { header -> String? in
            guard header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
            return String(header.dropFirst(7))
        }
        guard let presented, HMACSHA256.constantTimeEqual(Array(presented.utf8), Array(secret.utf8)) else {
            throw HTTPError(.unauthorized, code: "unauthenticated", detail: "The Matrix integration's secret is missing or wrong.",
                            headers: ["WWW-Authenticate": "Bearer"]).keyed("matrix.unauthenticated")
        }
    }

    private func isBanned(_ user: String) -> Bool {
        guard let ban = context.bans.active(user) else { return false }
        // A shadow-banned user must not learn of it: what they may do stays open to them.
        return !ban.shadow
    }

    // MARK: - Judging

    /// A new message: judged and stored as a send to its room.
    private func moderate(_ message: MatrixMessage, _ choice: Catalog.Choice) async throws -> Response {
        try Self.checkIDs(message)
        // Nothing to judge (an image's empty caption): allowed, and not stored.
        guard !message.text.unicodeScalars.allSatisfy(\.properties.isWhitespace) else { return Self.allowed }
        let ban = context.bans.active(message.sender)
        if let ban, !ban.shadow { return Self.banned(choice) }
        if let retryAfter = await context.takeSendToken(message.sender) { return Self.limited(retryAfter) }
        var submission = Submission(text: message.text, channelID: message.roomID, id: message.eventID)
        // An event id Bouncer holds for another text or sender is judged all the same.
        submission.ownIDWhenTaken = true
        let identity = Identity(userID: message.sender, role: .user)
        let answer: IntegrationContext.Answer
        do {
            answer = try await context.submit(submission, identity, ban: ban)
        } catch let refusal as MessageError {
            throw refusal.problem()
        } catch let error as HTTPError where error.status.code != 503 {
            throw error
        } catch {
            return unavailable(error)
        }
        rooms.note(user: message.sender, room: message.roomID)
        guard case .committed(let submitted) = answer else { return Self.allowed }
        switch submitted.outcome {
        case .created(let stored), .replayed(let stored):
            return stored.state == .delivered ? Self.allowed : Self.refused(choice)
        case .conflict, .parentNotFound:
            // Neither comes of a message stored under its own id when its event id is taken, and
            // with no parent: the verdict decides.
            return MessageState(after: submitted.verdict.action) == .delivered ? Self.allowed : Self.refused(choice)
        }
    }

    /// An edit (`m.replace`): judged as an edit of the message it replaces, as its author's
    /// `PATCH` would be; one of a message Bouncer does not hold is judged as a new message.
    private func edit(_ message: MatrixMessage, replacing replaced: String, _ choice: Catalog.Choice) async throws -> Response {
        guard MatrixID.isEventID(replaced), let original = try await context.messages.store.message(id: replaced),
              original.userID == message.sender else {
            return try await moderate(message, choice)
        }
        try Self.checkIDs(message)
        let ban = context.bans.active(message.sender)
        if let ban, !ban.shadow { return Self.banned(choice) }
        if let retryAfter = await context.takeSendToken(message.sender) { return Self.limited(retryAfter) }
        let identity = Identity(userID: message.sender, role: .user)
        do {
            let edited = try await context.messages.edit(replaced, to: message.text, identity, shadowBanned: ban != nil)
            return edited.state == .delivered ? Self.allowed : Self.refused(choice)
        } catch let refusal as MessageError where refusal.refusesEdit {
            return Self.refused(choice)
        } catch let refusal as MessageError {
            throw refusal.problem()
        } catch let error as HTTPError where error.status.code != 503 {
            throw error
        } catch {
            return unavailable(error)
        }
    }

    /// A redaction of a message Bouncer holds deletes it when its author made it in the message's
    /// own room, as their delete would. Synapse calls this before it checks whether the sender may
    /// redact at all, so anyone else's redaction (a member's that Synapse will refuse, or a room
    /// moderator's) changes nothing here, and nor does one sent in another room, which redacts
    /// nothing in Matrix: Bouncer's moderators act through Bouncer. Redactions are never refused.
    private func redact(_ redacts: String, by sender: String, in roomID: String?) async throws -> Response {
        guard MatrixID.isUserID(sender) else { throw Self.invalidIDs }
        guard MatrixID.isEventID(redacts), let message = try await context.messages.store.message(id: redacts),
              message.userID == sender, message.channelID == roomID, message.state != .removed, message.state != .deleted else {
            // Not held, not the sender's own, not in its room, or removed already (Bouncer's own
            // redaction of a moderator's removal).
            return Self.allowed
        }
        let identity = Identity(userID: sender, role: .user)
        do {
            try await context.messages.delete(redacts, identity)
        } catch is MessageError {
            // Gone meanwhile: nothing to delete.
        } catch {
            return unavailable(error)
        }
        return Self.allowed
    }

    private static func checkIDs(_ message: MatrixMessage) throws(HTTPError) {
        guard MatrixID.isUserID(message.sender), MatrixID.isRoomID(message.roomID), MatrixID.isEventID(message.eventID) else {
            throw invalidIDs
        }
    }

    /// A sender that is not a Matrix user id (`@localpart:server`), or a room or event id that is
    /// not Matrix's: 400, `M_INVALID_PARAM` to the module.
    static let invalidIDs = HTTPError(.badRequest, code: "invalid_field",
                                      detail: "The event's sender, room or event id is not one Bouncer can take (at most 255 characters each).").keyed("matrix.ids")

    /// The store could not take the message: refused (the homeserver fails closed), unless the
    /// operator chose to let messages through unmoderated.
    private func unavailable(_ error: any Error) -> Response {
        // Counted as the API's refusals are, so the next messages wait for their commit (and
        // fail as fast) until a write commits again.
        _ = context.availability?.problem(for: error)
        if context.integrations.matrixFailOpen { return Self.allowed }
        return Self.matrixError(.serviceUnavailable, "M_UNKNOWN", "Moderation is unavailable; try again shortly.", headers: ["Retry-After": "1"])
    }

    // MARK: - Answers

    static let allowed = Response.json(.ok, Array("{}".utf8))

    /// A message the rules refuse: the alert's message, in the configured locale.
    static func refused(_ choice: Catalog.Choice) -> Response {
        matrixError(.forbidden, "M_FORBIDDEN", choice.text("message.moderation.alert.message"))
    }

    static func banned(_ choice: Catalog.Choice) -> Response {
        matrixError(.forbidden, "M_FORBIDDEN", choice.text("error.user_banned.detail"))
    }

    static func limited(_ retryAfter: Int) -> Response {
        matrixError(.tooManyRequests, "M_LIMIT_EXCEEDED", "Too many messages; try again in \(retryAfter) seconds.",
                    retryAfterMilliseconds: retryAfter * 1000, headers: ["Retry-After": String(retryAfter)])
    }

    /// `{"errcode","error"}` (and `retry_after_ms`): nothing else.
    static func matrixError(_ status: HTTPStatus, _ errcode: String, _ error: String, retryAfterMilliseconds: Int? = nil,
                            headers: HTTPHeaders = [:]) -> Response {
        var json: [UInt8] = []
        JSONText.appendMember(#"{"errcode":"#, errcode, to: &json)
        JSONText.appendMember(#","error":"#, error, to: &json)
        if let retryAfterMilliseconds { json.append(contentsOf: #","retry_after_ms":\#(retryAfterMilliseconds)"#.utf8) }
        json.append(UInt8(ascii: "}"))
        var response = Response.json(status, json)
        for (name, value) in headers.fields { response.headers.set(name, value) }
        return response
    }

    /// The Matrix `errcode` for an error Bouncer answers with on this path.
    static func errcode(for error: HTTPError) -> String {
        switch (error.status.code, error.code) {
        case (400, "invalid_json"), (400, "json_too_deep"): "M_BAD_JSON"
        case (415, _): "M_NOT_JSON"
        case (400, _): "M_INVALID_PARAM"
        case (401, _): "M_UNKNOWN_TOKEN"
        case (403, _): "M_FORBIDDEN"
        case (404, _): "M_NOT_FOUND"
        case (413, _): "M_TOO_LARGE"
        case (429, _): "M_LIMIT_EXCEEDED"
        default: "M_UNKNOWN"
        }
    }
}

/// Answers errors on the Matrix integration's path in Matrix's shape, and on the scoring APIs'
/// paths in Google's and OpenAI's (every error: the server's own, such as a body too large, as
/// much as the routes'), and every other path's as `base` does.
struct IntegrationProblemRenderer: ProblemRenderer {
    let base: LocalizedProblemRenderer

    func problem(for error: any Error) -> HTTPError? { base.problem(for: error) }

    func render(_ error: HTTPError, for head: RequestHead?, requestID: String) -> Response {
        guard let head else { return base.render(error, for: head, requestID: requestID) }
        if !head.path.hasPrefix(MatrixRoutes.pathPrefix) {
            let localized = base.render(error, for: head, requestID: requestID)
            guard ForeignErrors.owns(head.path) else { return localized }
            let detail = (try? StrictJSONParser.parse(localized.body))?["detail"]?.stringValue ?? error.detail
            guard var response = ForeignErrors.response(for: head.path, error, detail: detail) else { return localized }
            for (name, value) in localized.headers.fields where name.lowercased() != "content-type" { response.headers.set(name, value) }
            return response
        }
        let localized = base.render(error, for: head, requestID: requestID)
        // The detail as the problem renderer localized it.
        let detail = (try? StrictJSONParser.parse(localized.body))?["detail"]?.stringValue ?? error.detail
        let retryAfter = error.headers["Retry-After"].flatMap(Int.init)
        var response = MatrixRoutes.matrixError(error.status, MatrixRoutes.errcode(for: error), detail,
                                                retryAfterMilliseconds: retryAfter.map { $0 * 1000 }, headers: error.headers)
        for (name, value) in localized.headers.fields where name.lowercased() != "content-type" { response.headers.set(name, value) }
        return response
    }
}
