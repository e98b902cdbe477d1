import Foundation

/// Why a user flags a message: one of the service's configured `flag_reasons`.
///
/// The defaults are the static members; a service may configure others, which
/// `FlagReason(rawValue:)` names.
public struct FlagReason: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static let spam: FlagReason = "spam"
    public static let harassment: FlagReason = "harassment"
    public static let hate: FlagReason = "hate"
    public static let sexual: FlagReason = "sexual"
    public static let violence: FlagReason = "violence"
    public static let selfHarm: FlagReason = "self_harm"
    public static let misinformation: FlagReason = "misinformation"
    public static let inappropriate: FlagReason = "inappropriate"
    public static let other: FlagReason = "other"
}

/// A user's report of a message, for moderators to review.
public struct Flag: Sendable, Hashable, Codable, Identifiable {
    /// The flag's id.
    public var id: String
    /// The flagged message.
    public var messageID: String
    /// The message's channel.
    public var channelID: String
    /// Who filed it (`system` for rules).
    public var reporterID: String
    /// Why.
    public var reason: FlagReason
    /// What the reporter added.
    public var details: String?
    /// `open`, `resolved` or `withdrawn`.
    public var state: String
    /// When it was filed.
    public var createdAt: String

    enum CodingKeys: String, CodingKey {
        case id, reason, details, state
        case messageID = "message_id", channelID = "channel_id", reporterID = "reporter_id", createdAt = "created_at"
    }
}
