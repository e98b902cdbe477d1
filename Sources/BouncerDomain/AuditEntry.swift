/// An entry of the audit log, which nothing updates or deletes: who did what, to what, when.
public struct AuditEntry: Sendable, Equatable {
    public var id: String
    public var actorID: String
    public var action: String
    public var targetType: String
    public var targetID: String
    public var note: String?
    /// JSON text.
    public var details: String?
    public var createdAt: String

    public init(id: String, actorID: String, action: String, targetType: String, targetID: String, note: String? = nil,
                details: String? = nil, createdAt: String) {
        self.id = id
        self.actorID = actorID
        self.action = action
        self.targetType = targetType
        self.targetID = targetID
        self.note = note
        self.details = details
        self.createdAt = createdAt
    }
}
