import BouncerIdentity
import BouncerLocalization
import BouncerStore
import Foundation
import HTTPServer
import JSON
import Locking

/// The settings in force, and what follows from them elsewhere (the default locale, the send
/// rate, the rules' inflections).
final class LiveSettings: Sendable {
    private let current: Locked<(settings: Settings, sequence: UInt64)>
    private let repository: any SettingsRepository
    private let localization: Localization
    private let sendLimiter: RateLimiter
    private let rules: Rules?
    /// What a store without settings of its own has in force.
    private let defaults: Settings

    init(repository: any SettingsRepository, defaults: Settings, localization: Localization, sendLimiter: RateLimiter,
         rules: Rules? = nil) async throws {
        let stored = try await repository.loadSettings()
        let settings = try Self.decode(stored, defaults: defaults)
        self.current = Locked((settings, stored.sequence))
        self.defaults = defaults
        self.repository = repository
        self.localization = localization
        self.sendLimiter = sendLimiter
        self.rules = rules
        applyEffects(settings)
        try await rules?.setInflections(settings.rule_inflections)
    }

    var value: Settings { current.withLock { $0.settings } }

    /// The settings' version in force (`ChangeTopic.settings`).
    var version: UInt64 { current.withLock { $0.sequence } }

    /// Validates a partial update, stores the result, then puts it in force.
    func update(with body: [UInt8], by actor: String) async throws -> Settings {
        let updated = try Self.merged(value, body, catalog: localization.catalog)
        let sequence = try await repository.saveSettings(try JSONText.encodedString(updated), by: actor,
                                                         events: [.of(.configChanged, updated)])
        try await put(updated, sequence)
        return updated
    }

    /// Puts stored settings in force, unless a later version already is: another instance's
    /// change, found by the store's version.
    func apply(_ snapshot: SettingsSnapshot) async throws {
        try await put(try Self.decode(snapshot, defaults: defaults), snapshot.sequence)
    }

    private func put(_ settings: Settings, _ sequence: UInt64) async throws {
        let newer = current.withLock { current in
            guard sequence > current.sequence else { return false }
            current = (settings, sequence)
            return true
        }
        guard newer else { return }
        applyEffects(settings)
        try await rules?.setInflections(settings.rule_inflections)
    }

    /// Stored settings, or the defaults before any were stored. A stored document that does not
    /// decode throws: put in force as the defaults, it would undo every setting an admin made
    /// (a member missing from a document an earlier release wrote takes its default).
    static func decode(_ snapshot: SettingsSnapshot, defaults: Settings) throws -> Settings {
        guard let json = snapshot.json else { return defaults }
        do {
            return try JSONValue.decode(Settings.self, from: json)
        } catch {
            throw StoredSettingsError(sequence: snapshot.sequence, reason: String(describing: error))
        }
    }

    private func applyEffects(_ settings: Settings) {
        localization.setDefaultLocale(settings.default_locale)
        sendLimiter.setRate(settings.send_rate_per_user)
    }

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

/// The stored settings document does not decode.
struct StoredSettingsError: Error, CustomStringConvertible {
    var sequence: UInt64
    var reason: String

    var description: String { "the stored settings (version \(sequence)) do not decode: \(reason)" }
}
