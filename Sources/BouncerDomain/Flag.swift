/// Where a flag (a report of a message) stands.
public enum FlagState: String, Sendable, CaseIterable, Codable {
    /// Waiting for a moderator, in the review queue.
    case open
    /// A moderator decided on its message.
    case resolved
    /// Its reporter took it back.
    case withdrawn
}

/// Flags the service files itself. Users' reasons are the settings' `flag_reasons`.
public enum SystemFlag {
    /// The reporter of every flag the service files.
    public static let reporterID = "system"
    /// A `flag` or `mask_flag` rule matched the message.
    public static let ruleMatch = "rule_match"
    /// Its author sent a `bounce_flag` message anyway.
    public static let bounceOverride = "bounce_override"
}
