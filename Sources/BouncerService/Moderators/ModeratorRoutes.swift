import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation
import HTTPServer
import JSON

/// `/v1/users/{user_id}/ban`, `/v1/bans` and `/v1/audit`.
struct ModeratorRoutes: Sendable {
    let repository: any ModerationRepository
    let bans: BanList
    let audit: Audit
    /// Where `POST /v1/admin/backup` writes (`<data-dir>/backups`).
    let backupDirectory: String


    struct BanInput: Decodable {
        var reason: String?
        var duration_seconds: Int?
        var shadow: Bool?
    }

    struct AuditJSON: Encodable {
        var id, actor_id, action, target_type, target_id: String
        @Nullable var note: String?
        @Nullable var details: [String: String]?
        var created_at: String

        /// `for`: who reads it. A webhook's URL often carries its receiver's secret, so its
        /// entries' `url` is shown to admins (who manage webhooks) only.
        init(_ entry: AuditEntry, for reader: Identity) {
            id = entry.id; actor_id = entry.actorID; action = entry.action; target_type = entry.targetType
            target_id = entry.targetID; note = entry.note; created_at = entry.createdAt
            details = entry.details.flatMap { try? JSONValue.decode([String: String].self, from: $0) }
            if entry.targetType == "webhook", reader.role < .admin, details?["url"] != nil { details?["url"] = "(admins only)" }
        }
    }

    func register(in routes: inout Routes) {
        routes.group("/v1") { group in
            let repository = self.repository
            let (audit, service) = (self.audit, BanService(repository: repository, bans: bans, audit: audit))
            group.post("/users/{user_id}/ban", .moderator) { request, identity in
                let userID = try IDValues.userID(request)
                let input = request.body.isEmpty ? BanInput() : try request.decodeJSON(BanInput.self)
                if let reason = input.reason, reason.unicodeScalars.count > 500 {
                    throw HTTPError.badRequest("invalid_field", "`reason` is longer than 500 characters.").keyed("field.too_long", "reason", 500)
                }
                if let seconds = input.duration_seconds, !(1...BanRecord.maxSeconds).contains(seconds) {
                    throw HTTPError.badRequest("invalid_field", "`duration_seconds` must be from 1 to \(BanRecord.maxSeconds).").keyed("field.range", "duration_seconds", 1, BanRecord.maxSeconds)
                }
                let ban = try await service.ban(userID, reason: input.reason, seconds: input.duration_seconds, shadow: input.shadow ?? false,
                                                by: identity)
                return try Response.encoded(BanJSON(ban), status: .created)
            }
            group.delete("/users/{user_id}/ban", .moderator) { request, identity in
                do {
                    try await service.unban(try IDValues.userID(request), by: identity)
                } catch let refusal as BanRefusal {
                    throw refusal.problem
                }
                return Response(status: .noContent)
            }
            group.get("/bans", .moderator) { request, _ in
                let after = try Pagination.after(request)
                let page = try await Page(limit: try Pagination.limit(request)) { count in
                    try await repository.activeBans(now: Timestamp.now(), after: after, limit: count)
                }
                return try Response.encoded(ListResponse(name: "bans", items: page.items.map(BanJSON.init), nextCursor: page.nextCursor(\.userID)))
            }
            let backups = self.backupDirectory
            group.post("/admin/backup", .admin) { _, identity in
                try await Self.backup(identity, repository: repository, into: backups, audit: audit)
            }
            group.get("/audit", .moderator) { request, identity in
                let limit = try Pagination.limit(request)
                var filter = AuditQuery(actorID: try QueryValues.shortText(request, "actor_id"), action: try QueryValues.shortText(request, "action"),
                                        after: try Pagination.after(request))
                if let since = request.query("since") { filter.since = try QueryValues.timestamp(since, "since") }
                switch request.query("order") {
                case nil, "oldest": break
                case "newest": filter.newestFirst = true
                default: throw HTTPError.badRequest("invalid_field", "`order` must be `oldest` (the default) or `newest`.").keyed("audit.order")
                }
                let page = try await Page(limit: limit) { [filter] count in
                    var query = filter
                    query.limit = count
                    return try await repository.auditEntries(query)
                }
                return try Response.encoded(ListResponse(name: "entries", items: page.items.map { AuditJSON($0, for: identity) },
                                                            nextCursor: page.nextCursor(\.id)))
            }
    

        }

    }

    /// A backup into `<data-dir>/backups/` (SQLite's copy, or PostgreSQL's `pg_dump`), named by
    /// its time: the API never takes a path, so a request cannot write anywhere else on the server.
    static func backup(_ identity: Identity, repository: any ModerationRepository, into directory: String,
                       audit: Audit) async throws -> Response {
        guard let store = repository as? any ServiceStore else {
            throw HTTPError(.notImplemented, code: "not_supported", detail: "This store cannot make backups.")
        }
        let name = "bouncer-" + Timestamp.now().replacingOccurrences(of: ":", with: "-") + "." + store.backupExtension
        let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        let result = try await withCheckedThrowingContinuation { continuation in
            // Minutes for a large store: off the threads that serve requests.
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Swift.Result { try store.backup(to: path) })
            }
        }
        try await audit.record(identity, "store.backup", "store", name, details: ["bytes": String(result.bytes)])
        struct BackupJSON: Encodable {
            var path: String
            var bytes: Int
        }
        return try Response.encoded(BackupJSON(path: result.path, bytes: result.bytes), status: .created)
    }

}
