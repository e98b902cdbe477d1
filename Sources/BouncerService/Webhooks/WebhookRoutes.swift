import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation
import HTTPServer

/// `/v1/webhooks` (admin): where events are POSTed, and how their deliveries went.
struct WebhookRoutes: Sendable {
    let repository: any WebhookRepository
    let audit: Audit
    /// Loopback and private addresses are taken as URLs (`--webhook-allow-private`).
    let allowPrivate: Bool

    static let maxWebhooks = 50
    static let maxDescription = 500

    /// A webhook as the API shows it; `secret` only in the answer to its creation.
    struct WebhookJSON: Encodable {
        var id, url: String
        var types: [String]
        @Nullable var description: String?
        var enabled: Bool
        @Nullable var disabled_reason: String?
        var created_at, updated_at: String
        var secret: String?

        init(_ webhook: StoredWebhook, showingSecret: Bool = false) {
            id = webhook.id; url = webhook.url; types = webhook.types; description = webhook.description
            enabled = webhook.enabled; disabled_reason = webhook.disabledReason
            created_at = webhook.createdAt; updated_at = webhook.updatedAt
            secret = showingSecret ? webhook.secret : nil
        }
    }

    struct DeliveryJSON: Encodable {
        var id: Int64
        var webhook_id, event_id, event_type, state: String
        var attempts: Int
        @Nullable var next_attempt_at: String?
        @Nullable var last_status: Int?
        @Nullable var last_error: String?
        var created_at, updated_at: String

        init(_ delivery: WebhookDelivery) {
            id = delivery.id; webhook_id = delivery.webhookID; event_id = delivery.messageID; event_type = delivery.eventType
            state = delivery.state.rawValue; attempts = delivery.attempts
            next_attempt_at = delivery.state == .pending ? delivery.nextAttemptAt : nil
            last_status = delivery.lastStatus; last_error = delivery.lastError
            created_at = delivery.createdAt; updated_at = delivery.updatedAt
        }
    }

    /// `{"url"?, "types"?, "description"?, "enabled"?}`: absent members are left as they are;
    /// `"description": null` clears it.
    struct WebhookInput: Decodable {
        var url: String?
        var types: [String]?
        var description: String??
        var enabled: Bool?

        enum CodingKeys: String, CodingKey { case url, types, description, enabled }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            url = try container.decodeIfPresent(String.self, forKey: .url)
            types = try container.decodeIfPresent([String].self, forKey: .types)
            if container.contains(.description) {
                description = .some(try container.decodeNil(forKey: .description) ? nil : try container.decode(String.self, forKey: .description))
            }
            enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled)
        }
    }

    func register(in routes: inout Routes) {
        routes.group("/v1/webhooks") { group in
            let handlers = self
            group.post("", .admin) { request, identity in try await handlers.create(request, identity) }
            group.get("", .admin) { _, _ in
                try Response.encoded(["webhooks": try await handlers.repository.webhooks().map { WebhookJSON($0) }])
            }
            group.get("/{id}", .admin) { request, _ in
                try Response.encoded(WebhookJSON(try await handlers.existing(request)))
            }
            group.patch("/{id}", .admin) { request, identity in try await handlers.update(request, identity) }
            group.delete("/{id}", .admin) { request, identity in
                guard try await handlers.repository.deleteWebhook(id: try request.parameter("id")) else { throw Self.notFound }
                try await handlers.audit.record(identity, "webhook.delete", "webhook", try request.parameter("id"))
                return Response(status: .noContent)
            }
            group.post("/{id}/test", .admin) { request, _ in try await handlers.test(request) }
            group.get("/{id}/deliveries", .admin) { request, _ in try await handlers.deliveries(request) }
    

        }

    }

    static let notFound = HTTPError(.notFound, code: "webhook_not_found", detail: "There is no webhook with that id.")

    private func existing(_ request: Request) async throws -> StoredWebhook {
        guard let webhook = try await repository.webhook(id: try request.parameter("id")) else { throw Self.notFound }
        return webhook
    }

    private func create(_ request: Request, _ identity: Identity) async throws -> Response {
        let input = try request.decodeJSON(WebhookInput.self)
        guard let url = input.url else { throw HTTPError.badRequest("invalid_field", "`url` is required.").keyed("field.missing", "url") }
        let now = Timestamp.now()
        let webhook = StoredWebhook(id: TimeOrderedID.make(), url: try await checkedURL(url), types: try Self.checkedTypes(input.types ?? ["*"]),
                                    description: try Self.checkedDescription(input.description ?? nil), secret: WebhookSignature.newSecret(),
                                    enabled: input.enabled ?? true, disabledReason: nil, createdAt: now, updatedAt: now)
        guard try await repository.webhooks().count < Self.maxWebhooks else {
            throw HTTPError(.conflict, code: "webhook_limit", detail: "There are \(Self.maxWebhooks) webhooks already; delete one first.",
                            detailArguments: [String(Self.maxWebhooks)])
        }
        try await repository.createWebhook(webhook)
        try await audit.record(identity, "webhook.create", "webhook", webhook.id, details: ["url": webhook.url])
        return try Response.encoded(WebhookJSON(webhook, showingSecret: true), status: .created)
    }

    private func update(_ request: Request, _ identity: Identity) async throws -> Response {
        let input = try request.decodeJSON(WebhookInput.self)
        var webhook = try await existing(request)
        if let url = input.url { webhook.url = try await checkedURL(url) }
        if let types = input.types { webhook.types = try Self.checkedTypes(types) }
        if let description = input.description { webhook.description = try Self.checkedDescription(description) }
        if let enabled = input.enabled {
            webhook.enabled = enabled
            // Enabled again by hand: the reason it was disabled no longer holds.
            if enabled { webhook.disabledReason = nil }
        }
        webhook.updatedAt = Timestamp.now()
        guard try await repository.updateWebhook(webhook) else { throw Self.notFound }
        try await audit.record(identity, "webhook.update", "webhook", webhook.id)
        return try Response.encoded(WebhookJSON(webhook))
    }

    /// Queues a delivery of a `webhook.test` event, outside the event log: 202 with the delivery,
    /// whose outcome `GET .../deliveries` shows.
    private func test(_ request: Request) async throws -> Response {
        let webhook = try await existing(request)
        let now = Timestamp.now()
        let payload = #"{"id":0,"type":"webhook.test","created_at":"\#(now)","data":{"webhook_id":"\#(webhook.id)"}}"#
        guard let delivery = try await repository.queueTestDelivery(webhookID: webhook.id, eventType: "webhook.test",
                                                                    payload: payload, now: now) else { throw Self.notFound }
        return try Response.encoded(DeliveryJSON(delivery), status: .accepted)
    }

    private func deliveries(_ request: Request) async throws -> Response {
        let webhook = try await existing(request)
        var state: DeliveryState?
        if let text = request.query("state") {
            guard let value = DeliveryState(rawValue: text) else {
                throw HTTPError.badRequest("invalid_field", "`state` must be pending, delivered or failed.").keyed("webhooks.state")
            }
            state = value
        }
        let before = try Pagination.after(request).map { key throws(HTTPError) -> Int64 in
            guard let id = Int64(key) else { throw HTTPError.badRequest("invalid_cursor", "`cursor` is not one this service gave out.") }
            return id
        }
        let page = try await Page(limit: try Pagination.limit(request)) { count in
            try await repository.deliveries(webhookID: webhook.id, state: state, before: before, limit: count)
        }
        return try Response.encoded(ListResponse(name: "deliveries", items: page.items.map(DeliveryJSON.init),
                                                 nextCursor: page.nextCursor { String($0.id) }))
    }

    private func checkedURL(_ text: String) async throws(HTTPError) -> String {
        do {
            return try await WebhookAddress.check(text, allowPrivate: allowPrivate).absoluteString
        } catch .privateAddress(let host) {
            throw HTTPError(.unprocessableContent, code: "private_address",
                            detail: "\(host) is a loopback or private address; such URLs are refused unless the service allows them (--webhook-allow-private).",
                            detailArguments: [host])
        } catch {
            throw HTTPError.badRequest("invalid_field", error.description).keyed(error.detailKey, arguments: error.detailArguments)
        }
    }

    static func checkedTypes(_ types: [String]) throws(HTTPError) -> [String] {
        guard !types.isEmpty, types.count <= EventType.allCases.count,
              types == ["*"] || types.allSatisfy({ EventType(rawValue: $0) != nil }) else {
            throw HTTPError.badRequest("invalid_field", "`types` must be [\"*\"] or event types: "
                                       + EventType.allCases.map(\.rawValue).joined(separator: ", ") + ".").keyed("webhooks.types", EventType.allCases.map(\.rawValue).joined(separator: ", "))
        }
        var seen = Set<String>()
        return types.filter { seen.insert($0).inserted }
    }

    static func checkedDescription(_ description: String?) throws(HTTPError) -> String? {
        guard let description else { return nil }
        guard description.unicodeScalars.count <= maxDescription else {
            throw HTTPError.badRequest("invalid_field", "`description` is longer than \(maxDescription) characters.").keyed("field.too_long", "description", maxDescription)
        }
        return description
    }
}
