import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerStore
import Foundation
import HTTPServer
import JSON

/// Appeals (`/v1/messages/{id}/appeal`, `/v1/me/ban/appeal`, `/v1/me/appeals`, `/v1/appeals`)
/// and users' strikes (`/v1/users/{user_id}/strikes`). Bans stop sends, not these: a banned user
/// may appeal the ban and their messages.
struct AppealRoutes: Sendable {
    let repository: any AppealRepository & StrikeRepository
    let settings: LiveSettings
    let localization: Localization
    let audit: Audit
    /// Appeals a user may file: `burst` at once, then `rate` a second (here and, when instances
    /// share the store, in the shared buckets too).
    let limiter: RateLimiter
    let sharedRates: (any SharedSendRates)?
    let decisions: AppealService

    static let maxReason = 1000
    static let maxNote = 1000
    /// Ten appeals at once, then one each 30 seconds: enough for a person, not for a flood.
    static func makeLimiter() -> RateLimiter { RateLimiter(rate: 1.0 / 30, burst: 10) }

    struct AppealInput: Decodable {
        var reason: String
    }

    struct DecisionInput: Decodable {
        var decision: String
        var note: String?
    }

    func register(in routes: inout Routes) {
        routes.group("/v1") { group in
            let handlers = self
            group.post("/messages/{id}/appeal", .user) { request, identity in
                try await handlers.appealMessage(request, identity)
            }
            group.post("/me/ban/appeal", .user) { request, identity in
                try await handlers.appealBan(request, identity)
            }
            group.get("/me/appeals", .user) { request, identity in
                let before = try Pagination.after(request)
                let page = try await Page(limit: try Pagination.limit(request)) { count in
                    try await handlers.repository.appeals(ofUser: identity.userID, before: before, limit: count)
                }
                return .json(.ok, ListJSON.make("appeals", page.items.map(AppealJSON.json), next: page.nextCursor(\.id)))
            }
            group.get("/appeals", .moderator) { request, identity in
                try await handlers.queue(request, identity)
            }
            group.post("/appeals/{id}/decision", .moderator) { request, identity in
                try await handlers.decide(request, identity)
            }
            group.get("/users/{user_id}/strikes", .moderator) { request, _ in
                let userID = try IDValues.userID(request)
                let strikes = try await handlers.repository.activeStrikes(userID: userID, now: Timestamp.now())
                return try Response.encoded(AppealJSON.Strikes(user_id: userID, active: strikes.count, strikes: strikes.map(AppealJSON.Strike.init)))
            }
    

        }

    }

    private func reason(_ request: Request) throws -> String {
        let input = try request.decodeJSON(AppealInput.self)
        guard !input.reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
              input.reason.unicodeScalars.count <= Self.maxReason else {
            throw HTTPError.badRequest("invalid_field", "`reason` must be 1 to \(Self.maxReason) characters.").keyed("field.length", "reason", 1, Self.maxReason)
        }
        return input.reason
    }

    /// Spends one of the user's appeal tokens: 429 with Retry-After when none is left.
    private func admit(_ userID: String) async throws {
        var decision = limiter.take(userID)
        if decision == .allowed, let sharedRates {
            decision = await sharedRates.take("appeals " + userID, rate: limiter.rate, burst: limiter.burst)
        }
        if case .limited(let retryAfter) = decision {
            throw HTTPError(.tooManyRequests, code: "rate_limited", detail: "Too many appeals; try again in \(retryAfter) seconds.",
                            headers: ["Retry-After": String(retryAfter)], detailArguments: [String(retryAfter)]).keyed("appeals.rate_limited", retryAfter)
        }
    }

    private func appealMessage(_ request: Request, _ identity: Identity) async throws -> Response {
        let reason = try reason(request)
        try await admit(identity.userID)
        let (messageID, id, now) = (try request.messageID().value, TimeOrderedID.make(), Timestamp.now())
        let filing = try await file { snapshot in
            NewAppeal.ofMessage(snapshot, messageID: messageID, author: identity.viewer, reason: reason, id: id, now: now)
        } target: { try await repository.messageAppealTarget(messageID: messageID) }
        return try Self.answer(filing, what: "message")
    }

    private func appealBan(_ request: Request, _ identity: Identity) async throws -> Response {
        let reason = try reason(request)
        try await admit(identity.userID)
        let (id, now) = (TimeOrderedID.make(), Timestamp.now())
        let filing = try await file { snapshot in
            NewAppeal.ofBan(snapshot, userID: identity.userID, reason: reason, id: id, now: now)
        } target: { try await repository.banAppealTarget(userID: identity.userID, now: now) }
        return try Self.answer(filing, what: "ban")
    }

    /// Reads the target, decides the appeal and files it with its `appeal.created` event while
    /// the target is as read.
    private func file(_ decide: @escaping (AppealTargetSnapshot) -> NewAppeal.Decision,
                      target: () async throws -> AppealTargetSnapshot) async throws -> AppealFiling {
        let events = localization.messageEvents
        return try await Replanning.run(
            "appeal",
            read: { try await target() },
            plan: { snapshot -> NewAppeal.Decision in
                let decision = decide(snapshot)
                guard case .file(var filing) = decision else { return decision }
                filing.events = [events.ofAppeal(.appealCreated, filing.appeal, message: snapshot.message)]
                return .file(filing)
            },
            apply: { decision -> Planned<AppealFiling> in
                switch decision {
                case .answer(let outcome): .applied(outcome)
                case .file(let filing): try await repository.applyFiling(filing)
                }
            }) ?? .notFound
    }

    private static func answer(_ filing: AppealFiling, what: String) throws -> Response {
        switch filing {
        case .created(let appeal): return .json(.created, AppealJSON.json(appeal))
        case .exists:
            throw HTTPError(.conflict, code: "appeal_exists", detail: "This \(what) has been appealed already.")
                .keyed(what == "ban" ? "appeals.ban_appealed" : "appeals.message_appealed")
        case .notAppealable:
            throw HTTPError(.conflict, code: "not_appealable", detail: "Only your own bounced or removed messages can be appealed.")
        case .notFound where what == "ban":
            throw HTTPError(.notFound, code: "ban_not_found", detail: "You are not banned.").keyed("appeals.not_banned")
        case .notFound:
            throw MessageText.notFound
        }
    }

    private func queue(_ request: Request, _ identity: Identity) async throws -> Response {
        let state = request.query("state") ?? "open"
        guard ["open", "upheld", "overturned"].contains(state) else {
            throw HTTPError.badRequest("invalid_field", "`state` must be open, upheld or overturned.").keyed("appeals.state")
        }
        let after = try Pagination.after(request)
        let page = try await Page(limit: try Pagination.limit(request)) { count in
            try await repository.appealQueue(state: state, after: after, limit: count)
        }
        let choice = localization.choice(for: request.head)
        var response = Response.json(.ok, ListJSON.make("appeals", page.items.map { AppealJSON.item($0, for: identity, choice: choice) },
                                                          next: page.nextCursor(\.appeal.id)))
        Localization.mark(&response, choice)
        return response
    }

    private func decide(_ request: Request, _ identity: Identity) async throws -> Response {
        let input = try request.decodeJSON(DecisionInput.self)
        guard input.decision == "uphold" || input.decision == "overturn" else {
            throw HTTPError.badRequest("invalid_field", "`decision` must be uphold or overturn.").keyed("appeals.decision")
        }
        if let note = input.note, note.unicodeScalars.count > Self.maxNote {
            throw HTTPError.badRequest("invalid_field", "`note` is longer than \(Self.maxNote) characters.").keyed("field.too_long", "note", Self.maxNote)
        }
        let decision: AppealDecision
        do {
            decision = try await decisions.decide(appealID: try request.parameter("id"), overturn: input.decision == "overturn",
                                                  note: input.note, by: identity)
        } catch let refusal as AppealDecisionRefusal {
            throw refusal.problem
        }
        var members: [(name: String, json: [UInt8])] = []
        if decision.appeal.targetType == "message" {
            let message = decision.message.map {
                MessageJSON.json($0, for: identity, choice: localization.choice(for: request.head), alertActionsEnabled: false)
            }
            members.append(("message", message ?? Array("null".utf8)))
        } else {
            members.append(("ban", AppealJSON.ban(decision.ban)))
        }
        return .json(.ok, AppealJSON.json(decision.appeal, adding: members))
    }
}
