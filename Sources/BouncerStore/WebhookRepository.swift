import BouncerDomain
import Foundation

public enum DeliveryState: String, Sendable, CaseIterable, DatabaseValueConvertible {
    case pending, delivered, failed
}

/// One event (or test) to deliver to one webhook, with its attempts so far.
public struct WebhookDelivery: Sendable, Equatable {
    public var id: Int64
    public var webhookID: String
    /// The `webhook-id` header: the event's id (`test_<n>` for a test delivery).
    public var messageID: String
    public var eventType: String
    /// The JSON POSTed.
    public var payload: String
    public var state: DeliveryState
    public var attempts: Int
    public var nextAttemptAt: String
    public var lastStatus: Int?
    public var lastError: String?
    public var createdAt: String
    public var updatedAt: String
}

/// How an attempt ended, to record.
public struct DeliveryResult: Sendable {
    public var deliveryID: Int64
    public var webhookID: String
    public var state: DeliveryState
    /// When a delivery still pending is tried again.
    public var nextAttemptAt: String
    public var status: Int?
    public var error: String?
    /// Set to disable the webhook, with this reason.
    public var disableWebhook: String?

    public init(deliveryID: Int64, webhookID: String, state: DeliveryState, nextAttemptAt: String, status: Int?, error: String?,
                disableWebhook: String? = nil) {
        self.deliveryID = deliveryID
        self.webhookID = webhookID
        self.state = state
        self.nextAttemptAt = nextAttemptAt
        self.status = status
        self.error = error
        self.disableWebhook = disableWebhook
    }
}

public protocol WebhookRepository: Sendable {
    /// Stores a new webhook, which is sent the events committed from now on.
    func createWebhook(_ webhook: StoredWebhook) async throws
    func webhooks() async throws -> [StoredWebhook]
    func webhook(id: String) async throws -> StoredWebhook?
    /// False when there is no such webhook.
    func updateWebhook(_ webhook: StoredWebhook) async throws -> Bool
    /// Deletes it and its deliveries; false when there is none.
    func deleteWebhook(id: String) async throws -> Bool
    /// Queues a delivery of `payload` outside the event log (a test); nil when there is no such webhook.
    func queueTestDelivery(webhookID: String, eventType: String, payload: String, now: String) async throws -> WebhookDelivery?
    /// Makes a delivery of each event after the webhook's cursor (at most `limit` events) that
    /// it takes, and moves the cursor past them, in one transaction (several instances may do this
    /// at once: the webhook's row is locked for it). Returns how many events were passed.
    func fanOut(webhookID: String, limit: Int, now: String) async throws -> Int
    /// Takes up to `limit` due deliveries of the webhook for an attempt, until `until` (another
    /// dispatcher takes them again after that, if this one died); counts the attempt.
    func claimDeliveries(webhookID: String, limit: Int, now: String, until: String) async throws -> [WebhookDelivery]
    /// Records attempts' outcomes, in one transaction.
    func recordDeliveries(_ results: [DeliveryResult], now: String) async throws
    /// The webhook's deliveries, newest first, before id `before`, of `state` only when given.
    func deliveries(webhookID: String, state: DeliveryState?, before: Int64?, limit: Int) async throws -> [WebhookDelivery]
    /// Deletes up to `limit` finished deliveries last changed before `before`; returns how many.
    func pruneDeliveries(before: String, limit: Int) async throws -> Int
}

extension SQLStore {
    private static var webhookColumns: String { "id, url, types, description, secret, enabled, disabled_reason, created_at, updated_at" }
    private static var deliveryColumns: String {
        "id, webhook_id, message_id, event_type, payload, state, attempts, next_attempt_at, last_status, last_error, created_at, updated_at"
    }

    public func createWebhook(_ webhook: StoredWebhook) async throws {
        try await write { database in
            // Ids are handed out in commit order: an event committed after this has a larger one.
            try database.execute("""
                INSERT INTO webhooks (\(Self.webhookColumns), cursor)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(id), 0) FROM events))
                """, Self.values(webhook))
        }
    }

    public func webhooks() async throws -> [StoredWebhook] {
        try await read { database in try database.fetchAll("SELECT \(Self.webhookColumns) FROM webhooks ORDER BY id", []).map(Self.webhook) }
    }

    public func webhook(id: String) async throws -> StoredWebhook? {
        try await read { database in
            try database.fetchOne("SELECT \(Self.webhookColumns) FROM webhooks WHERE id = ?", [.text(id)]).map(Self.webhook)
        }
    }

    public func updateWebhook(_ webhook: StoredWebhook) async throws -> Bool {
        try await write { database in
            try database.execute("""
                UPDATE webhooks SET url = ?, types = ?, description = ?, enabled = ?, disabled_reason = ?, updated_at = ? WHERE id = ?
                """, [.text(webhook.url), .text(Self.typesJSON(webhook.types)), webhook.description.databaseValue,
                      .integer(webhook.enabled ? 1 : 0), webhook.disabledReason.databaseValue, .text(webhook.updatedAt), .text(webhook.id)])
            return database.changes > 0
        }
    }

    public func deleteWebhook(id: String) async throws -> Bool {
        try await write { database in
            try database.execute("DELETE FROM webhook_deliveries WHERE webhook_id = ?", [.text(id)])
            try database.execute("DELETE FROM webhooks WHERE id = ?", [.text(id)])
            return database.changes > 0
        }
    }

    public func queueTestDelivery(webhookID: String, eventType: String, payload: String, now: String) async throws -> WebhookDelivery? {
        try await write { database in
            guard try database.fetchOne("SELECT 1 FROM webhooks WHERE id = ?", [.text(webhookID)]) != nil else { return nil }
            let row = try database.fetchOne("""
                INSERT INTO webhook_deliveries (webhook_id, message_id, event_type, payload, state, next_attempt_at, created_at, updated_at)
                VALUES (?, 'test', ?, ?, 'pending', ?, ?, ?) RETURNING id
                """, [.text(webhookID), .text(eventType), .text(payload), .text(now), .text(now), .text(now)])
            guard let row else { return nil }
            let id: Int64 = try row.decode("id")
            try database.execute("UPDATE webhook_deliveries SET message_id = ? WHERE id = ?", [.text("test_\(id)"), .integer(id)])
            return try database.fetchOne("SELECT \(Self.deliveryColumns) FROM webhook_deliveries WHERE id = ?", [.integer(id)])
                .map(Self.delivery)
        }
    }

    public func fanOut(webhookID: String, limit: Int, now: String) async throws -> Int {
        try await writeApart { database in
            // Most rounds find nothing new: they write nothing (and commit nothing to the disk).
            guard try database.fetchOne("""
                SELECT 1 FROM webhooks WHERE id = ? AND enabled = 1 AND EXISTS (SELECT 1 FROM events WHERE events.id > webhooks.cursor)
                """, [.text(webhookID)]) != nil else { return 0 }
            // The update takes the webhook's row lock (PostgreSQL) for the rest of the transaction.
            guard let hook = try database.fetchOne(
                "UPDATE webhooks SET cursor = cursor WHERE id = ? AND enabled = 1 RETURNING cursor, types", [.text(webhookID)])
            else { return 0 }
            let cursor: Int64 = try hook.decode("cursor")
            let types = try JSONColumn.types(try hook.decode("types"))
            let events = try database.fetchAll("SELECT id, type, created_at, data FROM events WHERE id > ? ORDER BY id LIMIT ?",
                                               [.integer(cursor), .integer(Int64(limit))]).map(Self.storedEvent)
            guard let last = events.last?.id else { return 0 }
            // One statement for the page (a round trip each would cost PostgreSQL more than the rows).
            let taken = events.filter { StoredWebhook.takes($0.type, types: types) }
            if !taken.isEmpty {
                try database.execute("""
                    INSERT INTO webhook_deliveries (webhook_id, message_id, event_type, payload, state, next_attempt_at, created_at, updated_at)
                    VALUES
                    """ + Array(repeating: "(?, ?, ?, ?, 'pending', ?, ?, ?)", count: taken.count).joined(separator: ", "),
                    taken.flatMap { event -> [DatabaseValue] in
                        [.text(webhookID), .text(String(event.id)), .text(event.type), .text(event.json), .text(now), .text(now), .text(now)]
                    })
            }
            try database.execute("UPDATE webhooks SET cursor = ? WHERE id = ?", [.integer(last), .text(webhookID)])
            return events.count
        }
    }

    public func claimDeliveries(webhookID: String, limit: Int, now: String, until: String) async throws -> [WebhookDelivery] {
        guard limit > 0 else { return [] }
        // Most looks find nothing due: a read says so without a write transaction. A disabled
        // webhook's deliveries wait for it to be enabled again.
        let due: Bool = try await read { database in
            try database.fetchOne("""
                SELECT 1 FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
                WHERE d.webhook_id = ? AND w.enabled = 1 AND d.state = 'pending' AND d.next_attempt_at <= ?
                  AND (d.claimed_until IS NULL OR d.claimed_until < ?)
                LIMIT 1
                """, [.text(webhookID), .text(now), .text(now)]) != nil
        }
        guard due else { return [] }
        return try await writeApart { database in
            // The outer conditions are checked again on a row another instance changed meanwhile
            // (PostgreSQL), so a delivery is taken by one dispatcher at a time.
            try database.fetchAll("""
                UPDATE webhook_deliveries SET claimed_until = ?, attempts = attempts + 1, updated_at = ?
                WHERE id IN (SELECT id FROM webhook_deliveries
                             WHERE webhook_id = ? AND state = 'pending' AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until < ?)
                             ORDER BY id LIMIT ?)
                  AND state = 'pending' AND (claimed_until IS NULL OR claimed_until < ?)
                RETURNING \(Self.deliveryColumns)
                """, [.text(until), .text(now), .text(webhookID), .text(now), .text(now), .integer(Int64(limit)), .text(now)])
                .map(Self.delivery).sorted { $0.id < $1.id }
        }
    }

    public func recordDeliveries(_ results: [DeliveryResult], now: String) async throws {
        guard !results.isEmpty else { return }
        try await writeApart { database in
            for result in results {
                try database.execute("""
                    UPDATE webhook_deliveries SET state = ?, next_attempt_at = ?, claimed_until = NULL, last_status = ?, last_error = ?,
                        updated_at = ? WHERE id = ?
                    """, [result.state.databaseValue, .text(result.nextAttemptAt), result.status.map { .integer(Int64($0)) } ?? .null,
                          result.error.databaseValue, .text(now), .integer(result.deliveryID)])
                if let reason = result.disableWebhook {
                    try database.execute("UPDATE webhooks SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ?",
                                         [.text(reason), .text(now), .text(result.webhookID)])
                }
            }
        }
    }

    public func deliveries(webhookID: String, state: DeliveryState?, before: Int64?, limit: Int) async throws -> [WebhookDelivery] {
        var sql = "SELECT \(Self.deliveryColumns) FROM webhook_deliveries WHERE webhook_id = ?"
        var arguments: [DatabaseValue] = [.text(webhookID)]
        if let state { sql += " AND state = ?"; arguments.append(state.databaseValue) }
        if let before { sql += " AND id < ?"; arguments.append(.integer(before)) }
        sql += " ORDER BY id DESC LIMIT ?"
        arguments.append(.integer(Int64(limit)))
        let (query, bound) = (sql, arguments)
        return try await read { database in try database.fetchAll(query, bound).map(Self.delivery) }
    }

    public func pruneDeliveries(before: String, limit: Int) async throws -> Int {
        try await writeApart { database in
            try database.execute("""
                DELETE FROM webhook_deliveries WHERE id IN
                    (SELECT id FROM webhook_deliveries WHERE state != 'pending' AND updated_at < ? ORDER BY id LIMIT ?)
                """, [.text(before), .integer(Int64(limit))])
            return database.changes
        }
    }

    private static func values(_ webhook: StoredWebhook) -> [DatabaseValue] {
        [.text(webhook.id), .text(webhook.url), .text(typesJSON(webhook.types)), webhook.description.databaseValue, .text(webhook.secret),
         .integer(webhook.enabled ? 1 : 0), webhook.disabledReason.databaseValue, .text(webhook.createdAt), .text(webhook.updatedAt)]
    }

    private static func typesJSON(_ types: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(types)) ?? Data("[]".utf8), as: UTF8.self)
    }


    private static func webhook(_ row: Row) throws(RowDecodingError) -> StoredWebhook {
        StoredWebhook(id: try row.decode("id"), url: try row.decode("url"), types: try JSONColumn.types(try row.decode("types")),
                      description: try row.decodeIfPresent("description"), secret: try row.decode("secret"), enabled: (try row.decode("enabled", as: Int.self)) == 1,
                      disabledReason: try row.decodeIfPresent("disabled_reason"), createdAt: try row.decode("created_at"), updatedAt: try row.decode("updated_at"))
    }

    private static func delivery(_ row: Row) throws(RowDecodingError) -> WebhookDelivery {
        WebhookDelivery(id: try row.decode("id"), webhookID: try row.decode("webhook_id"), messageID: try row.decode("message_id"),
                        eventType: try row.decode("event_type"), payload: try row.decode("payload"), state: try row.decode("state"),
                        attempts: try row.decode("attempts"), nextAttemptAt: try row.decode("next_attempt_at"),
                        lastStatus: try row.decodeIfPresent("last_status"), lastError: try row.decodeIfPresent("last_error"), createdAt: try row.decode("created_at"),
                        updatedAt: try row.decode("updated_at"))
    }
}
