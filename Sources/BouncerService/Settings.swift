import BouncerIdentity
import BouncerLocalization
import BouncerStore
import Foundation
import HTTPServer
import JSON
import Locking

/// `GET|PATCH /v1/config`: what admins change at run time, stored, and in force at once.
struct Settings: Codable, Sendable, Equatable {
    var bounced_messages_alert_actions_enabled = true
    var flag_action_enabled = true
    var flag_reasons = ["spam", "harassment", "hate", "sexual", "violence", "self_harm", "misinformation", "inappropriate", "other"]
    var auto_hide_flag_threshold = 0
    var max_message_length = 5000
    var default_locale = "en"
    var send_rate_per_user: Double = 10
    /// Whether word rules match inflections of their word (`fucks`, `fucking`) unless a rule says.
    var rule_inflections = true

    static let maxMessageLengthLimit = 20_000

    init() {}

    /// Stored settings from before a setting existed lack it: each missing one keeps its default.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func value<T: Decodable>(_ key: CodingKeys, _ current: T) throws -> T { try container.decodeIfPresent(T.self, forKey: key) ?? current }
        bounced_messages_alert_actions_enabled = try value(.bounced_messages_alert_actions_enabled, bounced_messages_alert_actions_enabled)
        flag_action_enabled = try value(.flag_action_enabled, flag_action_enabled)
        flag_reasons = try value(.flag_reasons, flag_reasons)
        auto_hide_flag_threshold = try value(.auto_hide_flag_threshold, auto_hide_flag_threshold)
        max_message_length = try value(.max_message_length, max_message_length)
        default_locale = try value(.default_locale, default_locale)
        send_rate_per_user = try value(.send_rate_per_user, send_rate_per_user)
        rule_inflections = try value(.rule_inflections, rule_inflections)
    }
}

/// The settings in force, and what follows from them elsewhere (the default locale, the send
/// rate, the rules' inflections).
final class LiveSettings: Sendable {
    private let current: Locked<Settings>
    private let repository: any SettingsRepository
    private let localization: Localization
    private let sendLimiter: RateLimiter
    private let rules: Rules?

    init(repository: any SettingsRepository, defaults: Settings, localization: Localization, sendLimiter: RateLimiter,
         rules: Rules? = nil) async throws {
        var settings = defaults
        if let stored = try await repository.loadSettings(), let decoded = try? JSONValue.decode(Settings.self, from: stored) {
            settings = decoded
        }
        self.current = Locked(settings)
        self.repository = repository
        self.localization = localization
        self.sendLimiter = sendLimiter
        self.rules = rules
        applyEffects(settings)
        try await rules?.setInflections(settings.rule_inflections)
    }

    var value: Settings { current.withLock { $0 } }

    /// Validates a partial update, stores the result, then puts it in force.
    func update(with body: [UInt8], by actor: String) async throws -> Settings {
        let updated = try Self.merged(value, body, catalog: localization.catalog)
        try await repository.saveSettings(try JSONText.encodedString(updated), by: actor)
        current.withLock { $0 = updated }
        applyEffects(updated)
        try await rules?.setInflections(updated.rule_inflections)
        return updated
    }

    private func applyEffects(_ settings: Settings) {
        localization.setDefaultLocale(settings.default_locale)
        sendLimiter.setRate(settings.send_rate_per_user)
    }

    static func merged(_ settings: Settings, _ body: [UInt8], catalog: Catalog) throws(HTTPError) -> Settings {
        guard let parsed = try? StrictJSONParser.parse(body), case .object(let object) = parsed else {
            throw .badRequest("invalid_json", "The body must be a JSON object of settings.")
        }
        var result = settings
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            func invalid(_ what: String) -> HTTPError { .badRequest("invalid_field", "`\(key)` must be \(what).") }
            switch (key, value) {
            case ("bounced_messages_alert_actions_enabled", .bool(let flag)):
                result.bounced_messages_alert_actions_enabled = flag
            case ("flag_action_enabled", .bool(let flag)):
                result.flag_action_enabled = flag
            case ("rule_inflections", .bool(let flag)):
                result.rule_inflections = flag
            case ("bounced_messages_alert_actions_enabled", _), ("flag_action_enabled", _), ("rule_inflections", _):
                throw invalid("true or false")
            case ("flag_reasons", .array(let items)):
                let reasons = items.compactMap(\.stringValue)
                guard reasons.count == items.count, (1...50).contains(reasons.count), Set(reasons).count == reasons.count,
                      reasons.allSatisfy(isReason) else { throw invalid("1-50 distinct reasons of 1-32 characters of a-z, 0-9 and _") }
                result.flag_reasons = reasons
            case ("auto_hide_flag_threshold", .number(let number)):
                guard let whole = wholeNumber(number), (0...10_000).contains(whole) else { throw invalid("a whole number from 0 to 10000") }
                result.auto_hide_flag_threshold = whole
            case ("max_message_length", .number(let number)):
                guard let whole = wholeNumber(number), (1...Settings.maxMessageLengthLimit).contains(whole) else {
                    throw invalid("a whole number from 1 to \(Settings.maxMessageLengthLimit)")
                }
                result.max_message_length = whole
            case ("default_locale", .string(let tag)):
                guard let matched = catalog.match(tag) else { throw invalid("a locale Bouncer has texts for") }
                result.default_locale = matched
            case ("send_rate_per_user", .number(let number)):
                guard (0...100_000).contains(number) else { throw invalid("a number of messages a second from 0 (off) to 100000") }
                result.send_rate_per_user = number
            case ("flag_reasons", _): throw invalid("a list of reasons")
            case ("auto_hide_flag_threshold", _), ("max_message_length", _), ("send_rate_per_user", _): throw invalid("a number")
            case ("default_locale", _): throw invalid("a locale tag")
            default:
                throw .badRequest("invalid_field", "`\(key)` is not a setting.")
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

struct SettingsRoutes: Sendable {
    let settings: LiveSettings
    let audit: Audit

    func register(in routes: inout Routes) {
        let settings = self.settings
        let audit = self.audit
        routes.add("GET", "/v1/config", .admin) { _, _ in try Response.encoded(settings.value) }
        routes.add("PATCH", "/v1/config", .admin) { request, identity in
            if let contentType = request.headers["content-type"], !Request.isJSON(contentType) {
                throw HTTPError(.unsupportedMediaType, code: "unsupported_media_type", detail: "The body must be JSON (Content-Type: application/json).")
            }
            let updated = try await settings.update(with: request.body, by: identity.userID)
            try await audit.record(identity, "config.update", "config", "settings",
                                   details: ["changed": String(decoding: request.body.prefix(2000), as: UTF8.self)])
            return try Response.encoded(updated)
        }
    }
}
