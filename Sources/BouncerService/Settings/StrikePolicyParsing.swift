import BouncerApplication
import HTTPServer
import JSON

/// `strike_policy` in `PATCH /v1/config`, read from its JSON, or the problem that says why not.
extension StrikePolicy {
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
