/// A flag to file with a message as it is stored: a rule's, or a report.
public struct NewFlag: Sendable, Equatable {
    public var id: String
    public var messageID: String
    public var channelID: String
    public var reporterID: String
    public var reason: String
    public var details: String?
    public var custom: String?
    public var ruleID: String?
    public var createdAt: String

    public init(id: String, messageID: String, channelID: String, reporterID: String, reason: String, details: String? = nil,
                custom: String? = nil, ruleID: String? = nil, createdAt: String) {
        self.id = id
        self.messageID = messageID
        self.channelID = channelID
        self.reporterID = reporterID
        self.reason = reason
        self.details = details
        self.custom = custom
        self.ruleID = ruleID
        self.createdAt = createdAt
    }
}
