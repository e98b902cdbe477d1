import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation
import JSON

/// Carries moderators' decisions back to the Matrix homeserver, as a bot account: a review that
/// removes a message redacts its event, a ban bans the user in every room Bouncer has seen them
/// post in, lifting it unbans them. The decisions come from the event log through a webhook of
/// its own (`webhookID`, whose URL is `matrix:` and the homeserver's), so they go at least once,
/// are retried as webhooks are, outlive restarts, and are listed with their attempts at
/// `GET /v1/webhooks/matrix-homeserver/deliveries`. Each Matrix call is idempotent (a redaction's
/// transaction id is the delivery's), so a retry repeats nothing.
package final class MatrixHomeserver: Sendable {
    package static let webhookID = "matrix-homeserver"
    package static let scheme = "matrix:"
    package static let eventTypes = ["review.decided", "user.banned", "user.unbanned"]

    package let baseURL: String
    private let accessToken: String
    private let sender: WebhookSender
    private let rooms: any MatrixRoomRepository
    private let metrics: Metrics

    package init(baseURL: String, accessToken: String, rooms: any MatrixRoomRepository, metrics: Metrics, timeout: Duration = .seconds(10)) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.accessToken = accessToken
        // The homeserver is the operator's own, often on a private address.
        sender = WebhookSender(timeout: timeout, threads: 4, allowPrivate: true)
        self.rooms = rooms
        self.metrics = metrics
    }

    package func close() { sender.close() }

    /// Keeps the webhook that feeds this in place, pointing at the homeserver (`enabled`), or
    /// disables it when the homeserver is no longer configured. Several instances may do this
    /// at once: one creates it, the others find it.
    package static func ensureWebhook(_ repository: any WebhookRepository, homeserver: String?) async throws {
        let existing = try await repository.webhook(id: webhookID)
        let now = Timestamp.now()
        guard let homeserver else {
            if var hook = existing, hook.enabled {
                hook.enabled = false
                hook.disabledReason = "the Matrix homeserver is not configured (--matrix-homeserver-url)"
                hook.updatedAt = now
                _ = try await repository.updateWebhook(hook)
            }
            return
        }
        let url = scheme + homeserver
        if var hook = existing {
            guard hook.url != url || !hook.enabled || hook.types != eventTypes else { return }
            (hook.url, hook.enabled, hook.disabledReason, hook.types, hook.updatedAt) = (url, true, nil, eventTypes, now)
            _ = try await repository.updateWebhook(hook)
            return
        }
        let hook = StoredWebhook(id: webhookID, url: url, types: eventTypes,
                                 description: "Moderators' decisions carried back to the Matrix homeserver (redactions, bans)",
                                 secret: "whsec_" + Base64URL.encode(HMACSHA256.randomBytes(24)), enabled: true,
                                 disabledReason: nil, createdAt: now, updatedAt: now)
        do {
            try await repository.createWebhook(hook)
        } catch {
            // Another instance made it first.
            guard try await repository.webhook(id: webhookID) != nil else { throw error }
        }
    }

    /// One delivery: the Matrix calls its event asks for. A 2xx when every call succeeded (or
    /// none was needed); else the first failure, which the dispatcher retries.
    package func deliver(_ delivery: WebhookDelivery) async -> WebhookSender.Outcome {
        guard let event = try? StrictJSONParser.parse(Array(delivery.payload.utf8)), let data = event["data"] else {
            return WebhookSender.Outcome(status: 200, error: nil)
        }
        switch delivery.eventType {
        case "review.decided":
            guard data["resolution"]?.stringValue == "message_removed", let message = data["message"],
                  let eventID = message["id"]?.stringValue, MatrixID.isEventID(eventID),
                  let room = message["channel_id"]?.stringValue, MatrixID.isRoomID(room) else { break }
            return await call("redact", "PUT", "rooms/\(Self.encode(room))/redact/\(Self.encode(eventID))/bouncer-\(delivery.id)",
                              body: #"{"reason":"Removed by a moderator"}"#)
        case "user.banned", "user.unbanned":
            // A shadow ban is one its user must not notice: nothing is carried to the homeserver.
            guard let user = data["user_id"]?.stringValue, MatrixID.isUserID(user), data["shadow"] != .bool(true) else { break }
            let action = delivery.eventType == "user.banned" ? "ban" : "unban"
            let userRooms: [String]
            do {
                userRooms = try await rooms.matrixRooms(of: user, limit: 10_000)
            } catch {
                return WebhookSender.Outcome(status: nil, error: "the rooms of \(user) could not be read")
            }
            var body: [UInt8] = []
            JSONText.appendMember(#"{"user_id":"#, user, to: &body)
            if action == "ban" { JSONText.appendMember(#","reason":"#, data["reason"]?.stringValue ?? "Banned by a moderator", to: &body) }
            body.append(UInt8(ascii: "}"))
            for room in userRooms {
                let outcome = await call(action, "POST", "rooms/\(Self.encode(room))/\(action)", body: String(decoding: body, as: UTF8.self))
                guard outcome.isSuccess else { return outcome }
            }
        default:
            break
        }
        return WebhookSender.Outcome(status: 200, error: nil)
    }

    private func call(_ name: String, _ method: String, _ path: String, body: String) async -> WebhookSender.Outcome {
        guard let url = URL(string: baseURL + "/_matrix/client/v3/" + path) else {
            return WebhookSender.Outcome(status: nil, error: "the homeserver's URL cannot be used")
        }
        let outcome = await sender.send(method, url, headers: ["Authorization": "Bearer \(accessToken)", "Content-Type": "application/json",
                                                               "User-Agent": "Bouncer/\(BouncerVersion.current)"], body: Array(body.utf8))
        metrics.add(ServiceMetric.matrixHomeserverCalls, name, outcome.isSuccess ? "done" : "failed")
        return outcome
    }

    /// A room or event id as one path segment: `!`, `$`, `:` and `/` percent-encoded.
    package static func encode(_ id: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id
    }
}

extension WebhookSender.Outcome {
    package var isSuccess: Bool { status.map { (200..<300).contains($0) } ?? false }
}
