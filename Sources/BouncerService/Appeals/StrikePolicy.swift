import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation
import HTTPServer
import JSON

/// `strike_policy` in `/v1/config`: how long a strike counts, and the ban each count of active
/// strikes brings. Off (null) by default: strikes are still recorded, and ban nobody.
struct StrikePolicy: Codable, Sendable, Equatable {
    struct Step: Codable, Sendable, Equatable {
        var strikes: Int
        /// Nil: for good.
        @Nullable var ban_seconds: Int?
    }

    var window_days: Int
    /// By `strikes`, ascending.
    var steps: [Step]

    /// How long a strike counts when no policy is set.
    static let defaultWindowDays = 30
    static let maxWindowDays = 3650
    static let maxSteps = 10
    static let maxStrikes = 1000

    /// The step for a user with `active` strikes: the one with the highest count reached.
    func step(for active: Int) -> Step? {
        steps.last { $0.strikes <= active }
    }

    /// A policy from a PATCH's JSON, or why not.
    static func parse(_ value: JSONValue) throws(HTTPError) -> StrikePolicy? {
        func invalid(_ what: String, key: String, _ arguments: [String] = []) -> HTTPError {
            .badRequest("invalid_field", "`strike_policy` \(what).").keyed(key, arguments: arguments)
        }
        func whole(_ value: JSONValue?, _ range: ClosedRange<Int>) -> Int? {
            guard case .number(let number)? = value, let double = Optional(number.double), double.rounded() == double,
                  abs(double) < 1e12, range.contains(Int(double)) else { return nil }
            return Int(double)
        }
        switch value {
        case .null: return nil
        case .object(let object):
            guard Set(object.members.map(\.key)).isSubset(of: ["window_days", "steps"]) else {
                throw invalid("has only `window_days` and `steps`", key: "strike_policy.members")
            }
            guard let days = whole(object["window_days"], 1...maxWindowDays) else {
                throw invalid("needs `window_days`, a whole number of days from 1 to \(maxWindowDays)", key: "strike_policy.window_days", [String(maxWindowDays)])
            }
            guard case .array(let items)? = object["steps"], (1...maxSteps).contains(items.count) else {
                throw invalid("needs `steps`, a list of 1 to \(maxSteps) steps", key: "strike_policy.steps", [String(maxSteps)])
            }
            var steps: [Step] = []
            for item in items {
                guard case .object(let step) = item, Set(step.members.map(\.key)).isSubset(of: ["strikes", "ban_seconds"]),
                      let strikes = whole(step["strikes"], 1...maxStrikes) else {
                    throw invalid("steps each need `strikes` (1 to \(maxStrikes)) and `ban_seconds`", key: "strike_policy.step_strikes", [String(maxStrikes)])
                }
                var seconds: Int?
                switch step["ban_seconds"] {
                case .null?: seconds = nil
                case let value?:
                    guard let bounded = whole(value, 1...BanRecord.maxSeconds) else {
                        throw invalid("steps' `ban_seconds` must be from 1 to \(BanRecord.maxSeconds), or null for good", key: "strike_policy.ban_seconds_range", [String(BanRecord.maxSeconds)])
                    }
                    seconds = bounded
                case nil: throw invalid("steps each need `ban_seconds` (null bans for good)", key: "strike_policy.ban_seconds_missing")
                }
                steps.append(Step(strikes: strikes, ban_seconds: seconds))
            }
            guard Set(steps.map(\.strikes)).count == steps.count else { throw invalid("steps need distinct `strikes` counts", key: "strike_policy.distinct") }
            return StrikePolicy(window_days: days, steps: steps.sorted { $0.strikes < $1.strikes })
        default:
            throw invalid("must be an object or null", key: "strike_policy.type")
        }
    }
}
