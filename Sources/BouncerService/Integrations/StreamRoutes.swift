import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerStore
import Foundation
import HTTPServer
import JSON

/// `POST /v1/integrations/stream/before-message-send`: Bouncer as a Stream Chat app's Before
/// Message Send hook. Stream POSTs `{"message","user","channel","request_info"}` signed with the
/// app's secret (`X-Signature`: lowercase hex HMAC-SHA256 of the raw body); the message is judged
/// and stored as a send to `channel.cid` by `user.id` would be, and the answer is always 200 with
/// `{"message"}` as Stream expects: the message as it came when delivered or flagged, its text
/// masked for `mask*`, and `type: "error"` with the notice and the alert's message as its text for
/// `bounce*`, `remove`, `shadow` (Stream cannot shadow) and banned users. Only `text` and `type`
/// are ever changed, both among the fields Stream lets a hook rewrite; every other field is sent
/// back as it came.
struct StreamRoutes: Sendable {
    let context: IntegrationContext

    /// Stream's own objects nest their configuration.
    static let maxDepth = 64

    func register(in routes: inout Routes) {
        routes.group("/v1/integrations/stream/before-message-send") { group in
            let handlers = self
            group.integration("POST", "", .async { request in try await handlers.answer(request) })
    

        }

    }

    /// What the hook's body says, read and checked.
    struct Hook {
        var message: JSONObject
        var text: String
        var userID: String
        var channelID: String
        var messageID: String?
        var language: String?

        init(_ body: JSONValue) throws(HTTPError) {
            guard case .object(let message)? = body["message"] else { throw Self.missing("message") }
            guard let userID = body["user"]?["id"]?.stringValue else { throw Self.missing("user.id") }
            guard let channelID = body["channel"]?["cid"]?.stringValue else { throw Self.missing("channel.cid") }
            guard UserID.isPersonal(userID) else { throw HTTPError.badRequest("invalid_field", "`user.id` is not a user id Bouncer can take.").keyed("stream.user_id") }
            guard ChannelPattern.isChannelID(channelID) else {
                throw HTTPError.badRequest("invalid_field", "`channel.cid` \(ChannelPattern.invalidIDDetail)").keyed("field.channel_id", "channel.cid")
            }
            self.message = message
            self.userID = userID
            self.channelID = channelID
            text = message["text"]?.stringValue ?? ""
            // Stream's id when it has one Bouncer's ids can be; else Bouncer makes one.
            messageID = message["id"]?.stringValue.flatMap { id in
                (try? IDValues.messageID(id, field: "id")) != nil ? id : nil
            }
            language = body["user"]?["language"]?.stringValue
        }

        static func missing(_ field: String) -> HTTPError {
            HTTPError.badRequest("invalid_field", "The field `\(field)` is required.").keyed("field.required", field)
        }
    }

    private func answer(_ request: Request) async throws -> Response {
        guard context.integrations.streamEnabled, let secret = context.integrations.streamAPISecret, let key = context.integrations.streamAPIKey else {
            throw HTTPError.notFound("integration_not_configured", "The Stream integration is not configured (--stream-api-key, --stream-api-secret).").keyed("stream.not_configured")
        }
        try Self.authenticate(request, key: key, secret: secret)
        try request.checkJSONBody(checkingDepth: false)
        let body: JSONValue
        do {
            body = try StrictJSONParser.parse(request.body, maxDepth: Self.maxDepth)
        } catch {
            throw HTTPError.badRequest("invalid_json", "The request body is not valid JSON.")
        }
        let hook = try Hook(body)
        let choice = hook.language.flatMap { context.localization.catalog.choice(for: $0) } ?? context.localization.catalog.defaultChoice
        let (answer, message) = try await judge(hook, choice)
        context.metrics.add(ServiceMetric.streamHooks, answer)
        var json: [UInt8] = Array(#"{"message":"#.utf8)
        JSONValue.object(message).write(to: &json)
        json.append(UInt8(ascii: "}"))
        var response = Response.json(.ok, json)
        Localization.mark(&response, choice)
        return response
    }

    /// The judged message: what the hook answers (`unchanged`, `masked`, `error`) and the message
    /// object to send back.
    private func judge(_ hook: Hook, _ choice: Catalog.Choice) async throws -> (String, JSONObject) {
        // Nothing to judge (an attachment without a caption): sent as it came.
        guard !hook.text.unicodeScalars.allSatisfy(\.properties.isWhitespace) else { return ("unchanged", hook.message) }
        let ban = context.bans.active(hook.userID)
        if let ban, !ban.shadow { return ("error", Self.error(hook.message, text: choice.text("error.user_banned.detail"))) }
        if let retryAfter = await context.takeSendToken(hook.userID) {
            return ("error", Self.error(hook.message, text: choice.text("error.rate_limited.detail", [String(retryAfter)])))
        }
        var submission = Submission(text: hook.text, channelID: hook.channelID, id: hook.messageID)
        // A message id Bouncer holds for another text or user is judged all the same: Stream sends
        // the message when its hook fails, so an error here would be a way around moderation.
        submission.ownIDWhenTaken = true
        let identity = Identity(userID: hook.userID, role: .user)
        guard case .committed(let submitted) = try await context.submit(submission, identity, ban: ban) else {
            return ("unchanged", hook.message)
        }
        let (state, text): (MessageState, String)
        switch submitted.outcome {
        case .created(let stored), .replayed(let stored):
            (state, text) = (stored.state, stored.text)
        case .conflict, .parentNotFound:
            // Neither comes of a message stored under its own id when its id is taken, and with
            // no parent: the verdict decides, and the hook still answers 200.
            let outcome = MessageOutcome(submitted.verdict, text: hook.text)
            (state, text) = (outcome.state, outcome.text)
        }
        switch state {
        case .delivered where text != hook.text:
            return ("masked", Self.replacing(hook.message, ["text": .string(text)]))
        case .delivered, .deleted:
            return ("unchanged", hook.message)
        case .bounced, .removed, .shadowed:
            let text = choice.text("message.bounce.title") + "\n" + choice.text("message.moderation.alert.message")
            return ("error", Self.error(hook.message, text: text))
        }
    }

    /// The message refused: `type` error, its text the reason.
    static func error(_ message: JSONObject, text: String) -> JSONObject {
        replacing(message, ["type": .string("error"), "text": .string(text)])
    }

    /// `message` with `changes` in place (members it lacks added at the end), every other member
    /// as it came.
    static func replacing(_ message: JSONObject, _ changes: [String: JSONValue]) -> JSONObject {
        var result = JSONObject()
        for (key, value) in message.members { result.insert(key, changes[key] ?? value) }
        for key in changes.keys.sorted() where message[key] == nil { result.insert(key, changes[key]!) }
        return result
    }

    /// `X-Signature`, the lowercase hex HMAC-SHA256 of the raw body keyed with the app's secret,
    /// compared in constant time; and `X-Api-Key`, when sent, the app's key.
    static func authenticate(_ request: Request, key: String, secret: String) throws(HTTPError) {
        let unauthenticated = HTTPError(.unauthorized, code: "unauthenticated", detail: "The Stream hook's signature or API key is missing or wrong.").keyed("stream.unauthenticated")
        guard let signature = request.headers["x-signature"] else { throw unauthenticated }
        let expected = hex(HMACSHA256.authenticate(request.body, key: Array(secret.utf8)))
        guard HMACSHA256.constantTimeEqual(Array(signature.lowercased().utf8), Array(expected.utf8)) else { throw unauthenticated }
        if let presentedKey = request.headers["x-api-key"], !HMACSHA256.constantTimeEqual(Array(presentedKey.utf8), Array(key.utf8)) {
            throw unauthenticated
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
