import BouncerIdentity
import BouncerLocalization
import BouncerModeration
import BouncerStore
import Foundation
import HTTPServer
import JSON

/// Reading: a channel's pages and single messages, as the caller may see them.
extension MessagesRoutes {
    func channel(_ request: Request, _ identity: Identity) async throws -> Response {
        let channelID = try Self.channelID(request)
        let limit = try Pagination.limit(request)
        var before: Int64?
        if let key = try Pagination.after(request) {
            guard let sequence = Int64(key) else { throw HTTPError.badRequest("invalid_cursor", "`cursor` is not one this service gave out.") }
            before = sequence
        }
        let page = try await Page(limit: limit) { count in
            try await store.channelMessages(channelID, before: before, limit: count, viewer: identity.viewer)
        }
        let next = page.nextCursor { String($0.sequence) }
        let choice = localization.choice(for: request.head)
        let alertActionsEnabled = settings.value.bounced_messages_alert_actions_enabled
        // Newest page first, each page in chronological order.
        var json: [UInt8] = Array(#"{"messages":["#.utf8)
        for (index, message) in page.items.reversed().enumerated() {
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

    func visibleMessage(_ request: Request, _ identity: Identity) async throws -> StoredMessage {
        guard let message = try await store.message(id: request.parameter("id")),
              MessageJSON.isVisible(message, to: identity) else { throw Self.notFound }
        return message
    }

    func respond(_ message: StoredMessage, to request: Request, _ identity: Identity, status: HTTPStatus = .ok) throws -> Response {
        let choice = localization.choice(for: request.head)
        var response = Response.json(status, MessageJSON.json(message, for: identity, choice: choice,
                                                              alertActionsEnabled: settings.value.bounced_messages_alert_actions_enabled))
        Localization.mark(&response, choice)
        return response
    }
}
