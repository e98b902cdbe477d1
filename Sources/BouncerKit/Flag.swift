import Foundation

/// Why a user flags a message: one of the service's configured `flag_reasons`.
///
/// The defaults are the static members; a service may configure others, which
/// `FlagReason(rawValue:)` names.
public struct FlagReason: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral {
    /// The reason as the API writes it, such as `spam`.
    public var rawValue: String

    /// A reason by its name in the service's `flag_reasons`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A reason written as a literal: `"spam"`.
    public init(stringLiteral value: String) { rawValue = value }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Spam: ads, scams, repeated messages.
    public static let spam: FlagReason = "spam"
    /// Harassment of a person.
    public static let harassment: FlagReason = "harassment"
    /// Hate speech.
    public static let hate: FlagReason = "hate"
    /// Sexual content.
    public static let sexual: FlagReason = "sexual"
    /// Violence or threats.
    public static let violence: FlagReason = "violence"
    /// Self-harm.
    public static let selfHarm: FlagReason = "self_harm"
    /// Misinformation.
    public static let misinformation: FlagReason = "misinformation"
    /// Otherwise inappropriate.
    public static let inappropriate: FlagReason = "inappropriate"
    /// Anything else (say what in the flag's details).
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
