import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerStore
import Foundation
import HTTPServer
import JSON

/// Users' flags (`/v1/messages/{id}/flag`) and the moderators' side of them: `/v1/flags`, the
/// review queue, and review decisions.
struct FlagRoutes: Sendable {
    let repository: any FlagRepository & ModerationRepository
    let settings: LiveSettings
    let localization: Localization
    let audit: Audit
    let reviews: ReviewService

    static let maxDetails = 1000
    static let flagNotFound = HTTPError(.notFound, code: "flag_not_found", detail: "You have no open flag on this message.")

    struct FlagInput: Decodable {
        var reason: String
        var details: String?
        var custom: JSONValue?
    }

    struct ReviewInput: Decodable {
        var decision: String
        var note: String?
        var ban_duration_seconds: Int?
    }

    struct BulkReviewInput: Decodable {
        var message_ids: [String]
        var decision: String
        var note: String?
        var ban_duration_seconds: Int?
    }

    /// Most messages one bulk decision takes.
    static let maxBulkMessages = 100

    /// One message's outcome in a bulk decision.
    struct BulkResult: Encodable {
        var message_id: String
        var status: Int
        var code: String?
    }


    func register(in routes: inout Routes) {
        routes.group("/v1") { group in
            let handlers = self
            group.post("/messages/{id}/flag", .user) { request, identity in
                try await handlers.file(request, identity)
            }
            group.delete("/messages/{id}/flag", .user) { request, identity in
                let (messageID, events) = (try request.messageID(notFound: Self.flagNotFound).value, handlers.localization.messageEvents)
                guard try await Replanning.run(
                    "withdrawal of a flag on message \(messageID)",
                    read: { try await handlers.repository.openFlag(messageID: messageID, reporterID: identity.userID) },
                    plan: { flag in flag },
                    apply: { flag in
                        var withdrawn = flag
                        withdrawn.state = .withdrawn
                        return try await handlers.repository.withdraw(flag, events: events.ofWithdrawal(withdrawn))
                    }) != nil else {
                    throw Self.flagNotFound
                }
                return Response(status: .noContent)
            }
            group.get("/flags", .moderator) { request, _ in
                try await handlers.list(request)
            }
            group.get("/review-queue", .moderator) { request, identity in
                try await handlers.queue(request, identity)
            }
            group.post("/messages/{id}/review", .moderator) { request, identity in
                try await handlers.review(request, identity)
            }
            group.post("/review-queue/decisions", .moderator) { request, identity in
                try await handlers.reviewMany(request, identity)
            }
    


        }


    }

    private func file(_ request: Request, _ identity: Identity) async throws -> Response {
        let input = try request.decodeJSON(FlagInput.self)
        let reasons = settings.value.flag_reasons
        guard reasons.contains(input.reason) else {
            throw HTTPError.badRequest("invalid_field", "`reason` must be one of \(reasons.joined(separator: ", ")).").keyed("field.one_of", "reason", reasons.joined(separator: ", "))
        }
        if let details = input.details, details.unicodeScalars.count > Self.maxDetails {
            throw HTTPError.badRequest("invalid_field", "`details` is longer than \(Self.maxDetails) characters.").keyed("field.too_long", "details", Self.maxDetails)
        }
        var custom: String?
        if let value = input.custom {
            guard case .object = value else { throw HTTPError.badRequest("invalid_field", "`custom` must be an object.").keyed("field.object", "custom") }
            custom = value.serialized
            guard custom!.utf8.count <= MessageText.maxCustomBytes else {
                throw HTTPError.badRequest("invalid_field", "`custom` is larger than \(MessageText.maxCustomBytes) bytes.").keyed("field.too_large", "custom", MessageText.maxCustomBytes)
            }
        }
        let (messageID, reporter, events) = (try request.messageID().value, identity.viewer, localization.messageEvents)
        let (id, now, threshold) = (TimeOrderedID.make(), Timestamp.now(), settings.value.auto_hide_flag_threshold)
        let decided = try await Replanning.run(
            "flag on message \(messageID)",
            read: { () async throws -> FlagFiling.Decision? in
                FlagFiling.decide(try await repository.flagSnapshot(messageID: messageID, reporterID: reporter.userID), reporter: reporter,
                                  reason: input.reason, details: input.details, custom: custom, id: id, now: now, hideThreshold: threshold)
            },
            plan: { (decision: FlagFiling.Decision) -> FlagFiling.Decision in
                guard case .file(var filing) = decision else { return decision }
                filing.events = events.ofFiling(filing)
                return .file(filing)
            },
            apply: { (decision: FlagFiling.Decision) -> Planned<FlagOutcome> in
                switch decision {
                case .answer(let outcome): .applied(outcome)
                case .file(let filing): try await repository.applyFiling(filing)
                }
            })
        guard let outcome = decided else { throw MessageText.notFound }
        switch outcome {
        case .created(let flag): return .json(.created, FlagJSON.json(flag))
        case .existing(let flag): return .json(.ok, FlagJSON.json(flag))
        case .messageNotFound: throw MessageText.notFound
        case .ownMessage: throw HTTPError(.forbidden, code: "own_message", detail: "You cannot flag your own message.")
        }
    }

    private func list(_ request: Request) async throws -> Response {
        let limit = try Pagination.limit(request)
        var query = FlagQuery(after: try Pagination.after(request))
        if let text = request.query("state") {
            guard let state = FlagState(rawValue: text) else {
                throw HTTPError.badRequest("invalid_field", "`state` must be open, resolved or withdrawn.").keyed("flags.state")
            }
            query.state = state
        }
        query.reason = try QueryValues.shortText(request, "reason")
        query.channelID = try QueryValues.shortText(request, "channel_id")
        query.reporterID = try QueryValues.shortText(request, "reporter_id")
        query.authorID = try QueryValues.shortText(request, "author_id")
        if let since = request.query("since") { query.since = try QueryValues.timestamp(since, "since") }
        if let until = request.query("until") { query.until = try QueryValues.timestamp(until, "until") }
        let filter = query
        let page = try await Page(limit: limit) { count in
            var query = filter
            query.limit = count
            return try await repository.flags(query)
        }
        return .json(.ok, ListJSON.make("flags", page.items.map(FlagJSON.json), next: page.nextCursor(\.id)))
    }

    private func queue(_ request: Request, _ identity: Identity) async throws -> Response {
        if let state = request.query("state"), state != FlagState.open.rawValue {
            throw HTTPError.badRequest("invalid_field", "The review queue holds open flags: `state` may only be open.").keyed("flags.queue_state")
        }
        let order: ReviewOrder
        switch request.query("sort") ?? "flag_count" {
        case "flag_count": order = .flagCount
        case "oldest": order = .oldest
        default: throw HTTPError.badRequest("invalid_field", "`sort` must be flag_count or oldest.").keyed("flags.sort")
        }
        let limit = try Pagination.limit(request)
        let offset = try Pagination.after(request).map { key throws(HTTPError) -> Int in
            guard let offset = Int(key), offset >= 0 else { throw HTTPError.badRequest("invalid_cursor", "`cursor` is not one this service gave out.") }
            return offset
        } ?? 0
        let channelID = try QueryValues.shortText(request, "channel_id")
        let reason = try QueryValues.shortText(request, "reason")
        let page = try await Page(limit: limit) { count in
            try await repository.reviewQueue(channelID: channelID, reason: reason, order: order, offset: offset, limit: count)
        }
        let items = page.items
        // The queue's order changes as flags come and go: its cursor is a position.
        let next = page.hasMore ? Pagination.cursor(after: String(offset + limit)) : nil
        let choice = localization.choice(for: request.head)
        let alertActionsEnabled = settings.value.bounced_messages_alert_actions_enabled
        let entries = items.map { item -> [UInt8] in
            var json: [UInt8] = []
            json.reserveCapacity(1024 + 384 * item.flags.count)
            json.append(contentsOf: #"{"message":"#.utf8)
            json.append(contentsOf: MessageJSON.json(item.message, for: identity, choice: choice, alertActionsEnabled: alertActionsEnabled))
            json.append(contentsOf: #","flags":["#.utf8)
            for (index, flag) in item.flags.enumerated() {
                if index > 0 { json.append(UInt8(ascii: ",")) }
                FlagJSON.append(flag, to: &json)
            }
            json.append(contentsOf: "],\"flag_count\":\(item.flags.count),\"counts_by_reason\":{".utf8)
            for (index, reason) in item.countsByReason.keys.sorted().enumerated() {
                if index > 0 { json.append(UInt8(ascii: ",")) }
                JSONText.appendString(reason, to: &json)
                json.append(contentsOf: ":\(item.countsByReason[reason]!)".utf8)
            }
            json.append(contentsOf: #"},"first_flag_at":"#.utf8)
            JSONText.appendString(item.firstFlagAt, to: &json)
            json.append(contentsOf: #","last_flag_at":"#.utf8)
            JSONText.appendString(item.lastFlagAt, to: &json)
            json.append(UInt8(ascii: "}"))
            return json
        }
        var response = Response.json(.ok, ListJSON.make("items", entries, next: next))
        Localization.mark(&response, choice)
        return response
    }

    /// A review's decision, note and ban, checked: what one review and a bulk one both take.
    private static func checked(decision text: String, note: String?, banSeconds: Int?) throws(HTTPError) -> ReviewPlanner.Decision {
        guard let decision = ReviewPlanner.Decision(rawValue: text) else {
            throw HTTPError.badRequest("invalid_field", "`decision` must be dismiss, remove_message or ban_author.").keyed("flags.decision")
        }
        if let note, note.unicodeScalars.count > 1000 { throw HTTPError.badRequest("invalid_field", "`note` is longer than 1000 characters.").keyed("field.too_long", "note", 1000) }
        if let seconds = banSeconds, !(1...BanRecord.maxSeconds).contains(seconds) {
            throw HTTPError.badRequest("invalid_field", "`ban_duration_seconds` must be from 1 to \(BanRecord.maxSeconds).").keyed("field.range", "ban_duration_seconds", 1, BanRecord.maxSeconds)
        }
        return decision
    }

    private func review(_ request: Request, _ identity: Identity) async throws -> Response {
        let input = try request.decodeJSON(ReviewInput.self)
        let decision = try Self.checked(decision: input.decision, note: input.note, banSeconds: input.ban_duration_seconds)
        let result: ReviewResult
        do {
            result = try await reviews.review(messageID: try request.messageID().value, decision: decision, note: input.note,
                                              banSeconds: input.ban_duration_seconds, by: identity)
        } catch let refusal as ReviewRefusal {
            throw refusal.problem
        }
        guard let message = result.message else { throw MessageText.notFound }
        var json: [UInt8] = Array("{\"decision\":".utf8)
        JSONText.appendString(input.decision, to: &json)
        json.append(contentsOf: ",\"resolved\":\(result.resolved),\"message\":".utf8)
        json.append(contentsOf: MessageJSON.json(message, for: identity, choice: localization.choice(for: request.head),
                                                 alertActionsEnabled: settings.value.bounced_messages_alert_actions_enabled))
        json.append(UInt8(ascii: "}"))
        return .json(.ok, json)
    }

    /// One decision for each of up to 100 messages (`POST /v1/review-queue/decisions`), in the
    /// order given, each as its own review (atomic, and with its events and audit entry): a message
    /// that cannot be decided is told in its result, and the others are decided all the same.
    private func reviewMany(_ request: Request, _ identity: Identity) async throws -> Response {
        let input = try request.decodeJSON(BulkReviewInput.self)
        guard (1...Self.maxBulkMessages).contains(input.message_ids.count) else {
            throw HTTPError.badRequest("invalid_field", "`message_ids` must hold 1 to \(Self.maxBulkMessages) message ids.")
                .keyed("flags.bulk_count", Self.maxBulkMessages)
        }
        guard input.message_ids.allSatisfy({ MessageID($0) != nil }) else {
            throw HTTPError.badRequest("invalid_field", "`message_ids` holds a string that is not a message id.").keyed("flags.bulk_ids")
        }
        guard Set(input.message_ids).count == input.message_ids.count else {
            throw HTTPError.badRequest("invalid_field", "`message_ids` names a message twice.").keyed("flags.bulk_twice")
        }
        let decision = try Self.checked(decision: input.decision, note: input.note, banSeconds: input.ban_duration_seconds)
        var results: [BulkResult] = []
        for messageID in input.message_ids {
            do {
                _ = try await reviews.review(messageID: messageID, decision: decision, note: input.note,
                                             banSeconds: input.ban_duration_seconds, by: identity)
                results.append(BulkResult(message_id: messageID, status: 200))
            } catch ReviewRefusal.messageNotFound {
                results.append(BulkResult(message_id: messageID, status: 404, code: "message_not_found"))
            } catch {
                // The store could not take this one (down, or a conflict past every retry): the
                // next ones are tried all the same, and each result says which were decided.
                results.append(BulkResult(message_id: messageID, status: 503, code: "store_unavailable"))
            }
        }
        return try Response.encoded(["results": results])
    }
}
