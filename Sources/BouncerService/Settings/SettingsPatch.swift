import BouncerApplication
import BouncerLocalization
import HTTPServer
import JSON

/// `PATCH /v1/config`'s body read into settings, or the problem that says what is wrong with it.
extension LiveSettings {
    static func merged(_ settings: Settings, _ body: [UInt8], catalog: Catalog) throws(HTTPError) -> Settings {
        guard let parsed = try? StrictJSONParser.parse(body), case .object(let object) = parsed else {
            throw .badRequest("invalid_json", "The body must be a JSON object of settings.").keyed("json.settings_object")
        }
        var result = settings
        for (key, value) in object.members.sorted(by: { $0.key < $1.key }) {
            func invalid(_ what: String, key detailKey: String, _ arguments: [String] = []) -> HTTPError {
                .badRequest("invalid_field", "`\(key)` must be \(what).").keyed(detailKey, arguments: [key] + arguments)
            }
            switch (key, value) {
            case ("bounced_messages_alert_actions_enabled", .bool(let flag)):
                result.bounced_messages_alert_actions_enabled = flag
            case ("flag_action_enabled", .bool(let flag)):
                result.flag_action_enabled = flag
            case ("rule_inflections", .bool(let flag)):
                result.rule_inflections = flag
            case ("bounced_messages_alert_actions_enabled", _), ("flag_action_enabled", _), ("rule_inflections", _):
                throw invalid("true or false", key: "field.boolean")
            case ("flag_reasons", .array(let items)):
                let reasons = items.compactMap(\.stringValue)
                guard reasons.count == items.count, (1...50).contains(reasons.count), Set(reasons).count == reasons.count,
                      reasons.allSatisfy(isReason) else { throw invalid("1-50 distinct reasons of 1-32 characters of a-z, 0-9 and _", key: "settings.flag_reasons") }
                result.flag_reasons = reasons
            case ("auto_hide_flag_threshold", .number(let number)):
                guard let whole = wholeNumber(number.double), (0...10_000).contains(whole) else { throw invalid("a whole number from 0 to 10000", key: "field.whole_range", ["0", "10000"]) }
                result.auto_hide_flag_threshold = whole
            case ("max_message_length", .number(let number)):
                guard let whole = wholeNumber(number.double), (1...Settings.maxMessageLengthLimit).contains(whole) else {
                    throw invalid("a whole number from 1 to \(Settings.maxMessageLengthLimit)", key: "field.whole_range", ["1", String(Settings.maxMessageLengthLimit)])
                }
                result.max_message_length = whole
            case ("default_locale", .string(let tag)):
                guard let matched = catalog.match(tag) else { throw invalid("a locale Bouncer has texts for", key: "settings.locale") }
                result.default_locale = matched
            case ("send_rate_per_user", .number(let text)):
                let number = text.double
                guard (0...100_000).contains(number) else { throw invalid("a number of messages a second from 0 (off) to 100000", key: "settings.send_rate") }
                result.send_rate_per_user = number
            case ("strike_policy", _):
                result.strike_policy = try StrikePolicy.parse(value)
            case ("flag_reasons", _): throw invalid("a list of reasons", key: "settings.reason_list")
            case ("auto_hide_flag_threshold", _), ("max_message_length", _), ("send_rate_per_user", _): throw invalid("a number", key: "field.number")
            case ("default_locale", _): throw invalid("a locale tag", key: "settings.locale_tag")
            default:
                throw .badRequest("invalid_field", "`\(key)` is not a setting.").keyed("settings.unknown", key)
            }
        }
        return result
    }

    private static func isReason(_ reason: String) -> Bool {
        (1...32).contains(reason.utf8.count) && reason.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
    }

    private static func wholeNumber(_ number: Double) -> Int? {
        number.rounded() == number && abs(number) < 1e9 ? Int(number) : nil
    }
}
