import BouncerApplication
import BouncerDomain
import BouncerStore
import Foundation
import HTTPServer

/// `POST /v1/rules/dry-run`: candidate rules tried against stored messages (see `DryRunner`).
struct DryRunRoutes: Sendable {
    let runner: DryRunner

    struct Input: Decodable {
        var rules: [RulesRoutes.RuleInput]
        var channel_id: String?
        var since: String?
        var until: String?
        var limit: Int?
    }

    func register(in routes: inout Routes) {
        routes.group("/v1/rules/dry-run") { group in
            let runner = self.runner
            group.post("", .moderator) { request, identity in
                let input = try request.decodeJSON(Input.self)
                guard (1...DryRunner.maxCandidates).contains(input.rules.count) else {
                    throw HTTPError.badRequest("invalid_field", "`rules` must hold 1 to \(DryRunner.maxCandidates) rules.").keyed("dry_run.rules", DryRunner.maxCandidates)
                }
                let limit = input.limit ?? DryRunner.defaultLimit
                guard (1...DryRunner.maxLimit).contains(limit) else {
                    throw HTTPError.badRequest("invalid_field", "`limit` must be from 1 to \(DryRunner.maxLimit).").keyed("field.range", "limit", 1, DryRunner.maxLimit)
                }
                if let channel = input.channel_id, !ChannelPattern.isChannelID(channel) {
                    throw HTTPError.badRequest("invalid_field", "`channel_id` \(ChannelPattern.invalidIDDetail)").keyed("field.channel_id", "channel_id")
                }
                let since = try input.since.map { text throws(HTTPError) in try QueryValues.timestamp(text, "since") }
                let until = try input.until.map { text throws(HTTPError) in try QueryValues.timestamp(text, "until") }
                let now = Timestamp.now()
                let (rules, userID, attributes) = (input.rules, identity.userID, runner.attributes)
                // Made on the dry run's own thread once it has the one slot: checking a candidate
                // compiles its pattern, which takes real time for a hundred regexes.
                let candidates: @Sendable () throws -> [RuleDefinition] = {
                    try rules.enumerated().map { index, rule in
                        // Ids no stored rule has, so the candidates' matches are told apart.
                        let checked = Result { () throws(HTTPError) in
                            try RulesRoutes.validated(rule, base: nil, id: "dry-run-\(index + 1)", now: now, by: userID, attributes: attributes)
                        }
                        switch checked {
                        case .success(let stored): return stored.definition
                        case .failure(let error): throw error.prefixed("rules[\(index)]: ")
                        }
                    }
                }
                let client = request.client
                let report = try await runner.run(candidates, filter: HistoryFilter(channelID: input.channel_id, since: since, until: until),
                                                  limit: limit, clientGone: { client?.isGone ?? false })
                return try Response.encoded(report)
            }
    

        }

    }
}
