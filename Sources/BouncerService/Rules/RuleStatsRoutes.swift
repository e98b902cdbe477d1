import BouncerApplication
import BouncerStore
import Foundation
import HTTPServer

/// `GET /v1/rules/stats` and `GET /v1/rules/{id}/stats`: each rule's hits, enforced and observed,
/// and how reviews judged the messages it hit.
struct RuleStatsRoutes: Sendable {
    let repository: any RuleStatsRepository & RuleRepository
    let hits: RuleHits

    /// A rule's stats as the API shows them.
    struct StatsJSON: Encodable {
        var rule_id: String
        var hits, enforced_hits, observed_hits, messages_reviewed, confirmed, dismissed: Int
        @Nullable var precision: Double?

        init(_ stats: RuleStats) {
            rule_id = stats.ruleID
            hits = stats.hits
            enforced_hits = stats.enforcedHits
            observed_hits = stats.observedHits
            messages_reviewed = stats.reviewed
            confirmed = stats.confirmed
            dismissed = stats.dismissed
            precision = stats.precision
        }
    }

    enum Order: String {
        case hits, precision

        /// Most hits first; or best precision first, rules without reviews last (then by hits).
        func precedes(_ a: RuleStats, _ b: RuleStats) -> Bool {
            if self == .precision, a.precision != b.precision {
                guard let first = a.precision else { return false }
                guard let second = b.precision else { return true }
                return first > second
            }
            if a.hits != b.hits { return a.hits > b.hits }
            return a.ruleID < b.ruleID
        }
    }

    func register(in routes: inout Routes) {
        routes.group("/v1/rules") { group in
            let handlers = self
            group.get("/stats", .moderator) { request, _ in
                try await handlers.list(request)
            }
            group.get("/{id}/stats", .moderator) { request, _ in
                let id = try request.parameter("id")
                let period = try Self.period(request)
                let found = try await hits.stats(period) { try await handlers.repository.ruleStats(period, ruleID: id) }
                guard let stats = found[id] else { throw RulesRoutes.notFound }
                return try Response.encoded(StatsJSON(stats))
            }
    

        }

    }

    private func list(_ request: Request) async throws -> Response {
        let limit = try Pagination.limit(request)
        let period = try Self.period(request)
        guard let order = Order(rawValue: request.query("sort") ?? "hits") else {
            throw HTTPError.badRequest("invalid_field", "`sort` must be hits or precision.").keyed("rules.stats_sort")
        }
        let offset = try Pagination.after(request).map { key throws(HTTPError) -> Int in
            guard let offset = Int(key), offset >= 0 else { throw HTTPError.badRequest("invalid_cursor", "`cursor` is not one this service gave out.") }
            return offset
        } ?? 0
        let all = try await hits.stats(period) { try await repository.ruleStats(period, ruleID: nil) }.values.sorted(by: order.precedes)
        let page = all.dropFirst(offset).prefix(limit)
        let next = offset + page.count < all.count ? Pagination.cursor(after: String(offset + page.count)) : nil
        return try Response.encoded(ListResponse(name: "stats", items: page.map(StatsJSON.init), nextCursor: next))
    }

    static func period(_ request: Request) throws(HTTPError) -> StatsPeriod {
        let since = try request.query("since").map { text throws(HTTPError) in try QueryValues.timestamp(text, "since") }
        let until = try request.query("until").map { text throws(HTTPError) in try QueryValues.timestamp(text, "until") }
        // `until` before `since` is an empty period, as for the other lists' filters.
        return StatsPeriod(since: since, until: until)
    }
}
