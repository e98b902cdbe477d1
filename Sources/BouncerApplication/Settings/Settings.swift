import BouncerIdentity
import BouncerLocalization
import BouncerStore
import Foundation

/// `GET|PATCH /v1/config`: what admins change at run time, stored, and in force at once.
package struct Settings: Codable, Sendable, Equatable {
    package var bounced_messages_alert_actions_enabled = true
    package var flag_action_enabled = true
    package var flag_reasons = ["spam", "harassment", "hate", "sexual", "violence", "self_harm", "misinformation", "inappropriate", "other"]
    package var auto_hide_flag_threshold = 0
    package var max_message_length = 5000
    package var default_locale = "en"
    package var send_rate_per_user: Double = 10
    /// Whether word rules match inflections of their word (`fucks`, `fucking`) unless a rule says.
    package var rule_inflections = true
    /// Off (null) unless set: strikes are recorded either way, and ban nobody without it.
    @Nullable package var strike_policy: StrikePolicy? = nil

    package static let maxMessageLengthLimit = 20_000

    package init() {}

    /// Stored settings from before a setting existed lack it: each missing one keeps its default.
    package init(from decoder: any Decoder) throws {
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
        strike_policy = try container.decodeIfPresent(StrikePolicy.self, forKey: .strike_policy)
    }
}
