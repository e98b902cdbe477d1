/// A rule as stored: its definition, and who made it and when. The definition's fields read as
/// the rule's own (`rule.kind`).
@dynamicMemberLookup
public struct StoredRule: Sendable, Equatable {
    public var definition: RuleDefinition
    public var createdAt: String
    public var updatedAt: String
    public var createdBy: String

    public init(_ definition: RuleDefinition, createdAt: String, updatedAt: String, createdBy: String) {
        self.definition = definition
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.createdBy = createdBy
    }

    public subscript<Value>(dynamicMember field: WritableKeyPath<RuleDefinition, Value>) -> Value {
        get { definition[keyPath: field] }
        set { definition[keyPath: field] = newValue }
    }
}
