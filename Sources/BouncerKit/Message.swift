import Foundation

/// A chat message as Bouncer shows it to the caller.
///
/// What a message carries depends on who reads it: its author sees the ``moderation`` record,
/// the ``notice`` and the ``alert`` of their own bounced message; other users see a delivered
/// message or a tombstone.
public struct Message: Sendable, Hashable, Codable, Identifiable {
    /// The message's id: the client's own id when it sent one, else one the server made.
    public var id: String
    /// The channel the message was sent to, such as `messaging:general`.
    public var channelID: String
    /// The author's user id.
    public var userID: String
    /// The text as the caller may see it: masked where a rule masked it, empty in a tombstone.
    public var text: String
    /// `regular`, `error` (bounced and removed messages) or `deleted`.
    public var type: MessageType
    /// Where moderation left the message.
    public var state: MessageState
    /// When the message was sent (RFC 3339, UTC, milliseconds).
    public var createdAt: String
    /// When the message last changed.
    public var updatedAt: String
    /// Whether the author edited it.
    public var edited: Bool
    /// The message this one replies to, if any.
    public var parentID: String?
    /// The app's own data, as it sent it.
    public var custom: JSONValue?
    /// Why moderation acted, shown to the author of a bounced or removed message and to moderators.
    public var moderation: Moderation?
    /// The localized line shown with a bounced message ("Message was bounced"), for its author.
    public var notice: String?
    /// The "Are you sure?" alert of a bounced message, for its author. Absent when the service
    /// has `bounced_messages_alert_actions_enabled` off.
    public var alert: BouncedMessageAlert?

    /// Whether the message came back to its author instead of being delivered.
    public var isBounced: Bool { state == .bounced }

    enum CodingKeys: String, CodingKey {
        case id, text, type, state, edited, custom, moderation, notice, alert
        case channelID = "channel_id", userID = "user_id", createdAt = "created_at", updatedAt = "updated_at", parentID = "parent_id"
    }
}

/// A message's `type`, as Stream-style SDKs read it (`error` is what their `isBounced` checks).
public enum MessageType: Sendable, Hashable, Codable {
    /// A delivered (or shadowed) message.
    case regular
    /// A bounced or removed message: the SDKs' `isBounced`.
    case error
    /// A tombstone.
    case deleted
    /// A type this version of BouncerKit does not know.
    case other(String)

    public init(from decoder: any Decoder) throws {
        switch try decoder.singleValueContainer().decode(String.self) {
        case "regular": self = .regular
        case "error": self = .error
        case "deleted": self = .deleted
        case let other: self = .other(other)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .regular: try container.encode("regular")
        case .error: try container.encode("error")
        case .deleted: try container.encode("deleted")
        case .other(let value): try container.encode(value)
        }
    }
}

/// Where moderation left a message.
public enum MessageState: String, Sendable, Hashable, Codable {
    /// Everyone may see it.
    case delivered
    /// It went back to its author with an alert: only the author and moderators see it.
    case bounced
    /// Only its author (who sees it delivered) and moderators see it.
    case shadowed
    /// Moderation removed it.
    case removed
    /// A tombstone: deleted by its author or a moderator.
    case deleted
}

/// Why moderation acted on a message.
public struct Moderation: Sendable, Hashable, Codable {
    /// The deciding rule's action, such as `bounce`, `bounce_flag` or `remove`.
    public var action: String
    /// The rules that matched, with where they matched.
    public var rules: [MatchedRule]
    /// The text as it was sent.
    public var originalText: String?
    /// Whether a system flag was filed for moderators.
    public var flagged: Bool

    enum CodingKeys: String, CodingKey {
        case action, rules, flagged
        case originalText = "original_text"
    }
}

/// A rule that matched a message.
public struct MatchedRule: Sendable, Hashable, Codable {
    /// The rule's id.
    public var id: String
    /// The rule's name, if it has one.
    public var name: String?
    /// The rule's kind, such as `word` or `regex`.
    public var kind: String?
    /// Where it matched, so "Edit Message" can point at the words.
    public var matched: [MatchedSpan]
}

/// One match in a text: the matched text and its offsets in the original.
public struct MatchedSpan: Sendable, Hashable, Codable {
    /// The matched text.
    public var text: String
    /// The start, in Unicode scalars.
    public var start: Int
    /// The end (exclusive), in Unicode scalars.
    public var end: Int
    /// The start, in UTF-16 code units (`NSRange`'s unit).
    public var utf16Start: Int
    /// The end (exclusive), in UTF-16 code units.
    public var utf16End: Int

    enum CodingKeys: String, CodingKey {
        case text, start, end
        case utf16Start = "utf16_start", utf16End = "utf16_end"
    }
}

/// One page of a channel, in chronological order.
public struct MessagePage: Sendable, Hashable, Codable {
    /// The page's messages, oldest first.
    public var messages: [Message]
    /// The cursor of the next (older) page; nil on the last page.
    public var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case messages
        case nextCursor = "next_cursor"
    }
}
