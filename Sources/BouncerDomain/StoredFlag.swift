/// A flag as stored.
public struct StoredFlag: Sendable, Equatable {
    public var id: String
    public var messageID: String
    public var channelID: String
    public var reporterID: String
    public var reason: String
    public var details: String?
    public var custom: String?
    public var ruleID: String?
    public var state: FlagState
    public var resolution: String?
    public var resolvedBy: String?
    public var resolvedAt: String?
    public var createdAt: String

    public init(id: String, messageID: String, channelID: String, reporterID: String, reason: String, details: String?, custom: String?,
                ruleID: String?, state: FlagState, resolution: String?, resolvedBy: String?, resolvedAt: String?, createdAt: String) {
        self.id = id
        self.messageID = messageID
        self.channelID = channelID
        self.reporterID = reporterID
        self.reason = reason
        self.details = details
        self.custom = custom
        self.ruleID = ruleID
        self.state = state
        self.resolution = resolution
        self.resolvedBy = resolvedBy
        self.resolvedAt = resolvedAt
        self.createdAt = createdAt
    }
}

extension StoredFlag {
    /// A flag filed with a new message (a rule's), as it is once stored.
    public init(filed flag: NewFlag) {
        self.init(id: flag.id, messageID: flag.messageID, channelID: flag.channelID, reporterID: flag.reporterID, reason: flag.reason,
                  details: flag.details, custom: flag.custom, ruleID: flag.ruleID, state: .open, resolution: nil, resolvedBy: nil,
                  resolvedAt: nil, createdAt: flag.createdAt)
    }
}
