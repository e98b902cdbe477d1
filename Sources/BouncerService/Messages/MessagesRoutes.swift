import BouncerApplication
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
///
/// The use cases are `MessageService`'s; these routes read requests, answer in JSON, and turn its
/// refusals into problems (`MessageError.problem`).
///
/// A class, not a struct: every send's handler and the closures that carry it to the store and
/// back capture it, and a struct of references was copied, and each reference retained and
/// released, at every capture.
final class MessagesRoutes: Sendable {
    let service: MessageService
    let localization: Localization
    var store: any MessageRepository & FlagRepository { service.store }
    var settings: LiveSettings { service.settings }

    init(service: MessageService, localization: Localization) {
        self.service = service
        self.localization = localization
    }

    /// `error` as the API answers it: a refusal of the message use cases as its problem, in the
    /// caller's language; anything else as it is.
    func problem(_ error: any Error, _ request: Request) -> any Error {
        guard let refusal = error as? MessageError else { return error }
        return refusal.problem(localization.choice(for: request.head),
                               alertActionsEnabled: settings.value.bounced_messages_alert_actions_enabled)
    }

    /// A send's body, read with the strict parser (every send parses one, so it skips the
    /// general decoder): `{"id"?, "text", "parent_id"?, "custom"?}`; other members are ignored.
    struct SendInput {
        var id: String?
        var text: String
        var parentID: String?
        /// `custom` as compact JSON text.
        var custom: String?

        static let notAnObject = HTTPError.badRequest("invalid_json", "The request body is not a valid JSON object.").keyed("json.not_an_object")

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
                default: throw .badRequest("invalid_field", "The field `\(name)` has the wrong type.").keyed("field.wrong_type", name)
                }
            }
            guard let text = try optionalString("text") else { throw .badRequest("invalid_field", "The field `text` is required.").keyed("field.required", "text") }
            self.text = text
            id = try optionalString("id")
            parentID = try optionalString("parent_id")
            switch members["custom"] {
            case nil, .null?: custom = nil
            case .object?: custom = members["custom"]!.serialized
            default: throw .badRequest("invalid_field", "`custom` must be an object.").keyed("field.object", "custom")
            }
        }
    }

    struct EditInput: Decodable {
        var text: String
    }


    func register(in routes: inout Routes) {
        routes.group("/v1") { group in
            let handlers = self
            group.postAnsweringLater("/channels/{channel_id}/messages", .user, limitedAsSend: true) { request, identity, responder in
                try handlers.send(request, identity, responder)
            }
            group.get("/channels/{channel_id}/messages", .user) { request, identity in
                try await handlers.channel(request, identity)
            }
            group.get("/users/{user_id}/messages", .moderator) { request, identity in
                try await handlers.userMessages(request, identity)
            }
            group.get("/messages/{id}", .user) { request, identity in
                let message = try await handlers.visibleMessage(request, identity)
                return try handlers.respond(message, to: request, identity)
            }
            // An edit or a Send Anyway is a send too, and spends from the same rate.
            group.patch("/messages/{id}", .user, limitedAsSend: true) { request, identity in
                try await handlers.edit(request, identity)
            }
            group.post("/messages/{id}/resend", .user, limitedAsSend: true) { request, identity in
                try await handlers.resend(request, identity)
            }
            group.delete("/messages/{id}", .user) { request, identity in
                try await handlers.delete(request, identity)
            }
            group.get("/messages/{id}/actions", .user) { request, identity in
                try await handlers.actions(request, identity)
            }
            group.get("/messages/{id}/revisions", .moderator) { request, _ in
                let id = try request.messageID().value
                guard try await handlers.store.message(id: id) != nil else { throw MessageText.notFound }
                let limit = try Pagination.limit(request)
                let after = try Pagination.after(request).map { key throws(HTTPError) -> Int in
                    guard let revision = Int(key) else { throw HTTPError.badRequest("invalid_cursor", "`cursor` is not one this service gave out.") }
                    return revision
                } ?? 0
                let page = try await Page(limit: limit) { count in try await handlers.store.revisions(of: id, after: after, limit: count) }
                let revisions = page.items.map(RevisionJSON.init)
                return try Response.encoded(ListResponse(name: "revisions", items: revisions, nextCursor: page.nextCursor { String($0.revision) }))
            }
    


        }


    }

}
