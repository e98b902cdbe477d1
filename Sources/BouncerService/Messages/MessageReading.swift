import BouncerApplication
import BouncerDomain
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
        let channelID = try request.channelID().value
        let limit = try Pagination.limit(request)
        let before = try Self.sequenceCursor(request)
        if let around = request.query("around") {
            guard before == nil else { throw HTTPError.badRequest("invalid_field", "`around` and `cursor` cannot be given together.").keyed("messages.around_cursor") }
            return try await channel(channelID, around: around, limit: limit, request, identity)
        }
        let page = try await Page(limit: limit) { count in
            try await store.channelMessages(channelID, before: before, limit: count, viewer: identity.viewer)
        }
        // Newest page first, each page in chronological order.
        return messagesPage(page.items.reversed(), next: page.nextCursor { String($0.sequence) }, request, identity)
    }

    /// `?around=<message id>`: up to `limit` messages with that one in the middle, in
    /// chronological order (what a moderator reads a flagged message in); the cursor pages on to
    /// older messages, as the channel's own pages do.
    private func channel(_ channelID: String, around id: String, limit: Int, _ request: Request, _ identity: Identity) async throws -> Response {
        guard let message = try await store.message(id: id), message.channelID == channelID,
              MessageJSON.isVisible(message, to: identity) else { throw MessageText.notFound }
        let olderCount = (limit - 1) / 2, newerCount = limit - 1 - olderCount
        // With no room for older messages (`limit` 1), the cursor leads to them all the same.
        var older: [StoredMessage] = [], hasOlder = true
        if olderCount > 0 {
            let page = try await Page(limit: olderCount) { count in
                try await store.channelMessages(channelID, before: message.sequence, limit: count, viewer: identity.viewer)
            }
            (older, hasOlder) = (page.items, page.hasMore)
        }
        let newer = newerCount == 0 ? [] : try await store.channelMessages(channelID, after: message.sequence, limit: newerCount,
                                                                           viewer: identity.viewer)
        let next = hasOlder ? Pagination.cursor(after: String(older.last?.sequence ?? message.sequence)) : nil
        return messagesPage(older.reversed() + [message] + newer, next: next, request, identity)
    }

    /// Rows of the store a page of `GET /v1/users/{user_id}/messages` looks through at most.
    static let userMessagesWindow: Int64 = 50_000

    /// `GET /v1/users/{user_id}/messages`: what one user sent, in every state, newest first (for
    /// moderators, who see every message). Each page looks through at most `userMessagesWindow`
    /// of the store's messages (`UserMessagesPage` says why), so a page may hold fewer than
    /// `limit`, even none, and still have a cursor to older ones.
    func userMessages(_ request: Request, _ identity: Identity) async throws -> Response {
        let userID = try IDValues.userID(request)
        let limit = try Pagination.limit(request)
        let before = try Self.sequenceCursor(request)
        let page = try await store.userMessages(userID, before: before, window: Self.userMessagesWindow, limit: limit + 1)
        var messages = page.messages
        let next: Int64?
        if messages.count > limit {
            messages.removeLast(messages.count - limit)
            next = messages.last?.sequence
        } else {
            next = page.lookedDownTo > 1 ? page.lookedDownTo : nil
        }
        return messagesPage(messages, next: next.map { Pagination.cursor(after: String($0)) }, request, identity)
    }

    /// The position a page of messages starts below: the sequence its cursor holds.
    private static func sequenceCursor(_ request: Request) throws(HTTPError) -> Int64? {
        guard let key = try Pagination.after(request) else { return nil }
        // Sequences start at 1: no cursor the service gives out holds less (and a page of a
        // user's messages subtracts its window from it).
        guard let sequence = Int64(key), sequence >= 1 else {
            throw HTTPError.badRequest("invalid_cursor", "`cursor` is not one this service gave out.")
        }
        return sequence
    }

    /// `{"messages":[...],"next_cursor"}`, each message as `identity` sees it, in the order given.
    private func messagesPage(_ messages: [StoredMessage], next: String?, _ request: Request, _ identity: Identity) -> Response {
        let choice = localization.choice(for: request.head)
        let alertActionsEnabled = settings.value.bounced_messages_alert_actions_enabled
        var json: [UInt8] = Array(#"{"messages":["#.utf8)
        for (index, message) in messages.enumerated() {
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
        guard let message = try await store.message(id: try request.messageID().value),
              MessageJSON.isVisible(message, to: identity) else { throw MessageText.notFound }
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
