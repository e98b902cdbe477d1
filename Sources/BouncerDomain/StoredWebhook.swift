/// Where events are POSTed.
public struct StoredWebhook: Sendable, Equatable {
    public var id: String
    public var url: String
    /// Event types, or `["*"]` for all.
    public var types: [String]
    public var description: String?
    /// `whsec_` and the base64 of the signing key (the Standard Webhooks form).
    public var secret: String
    public var enabled: Bool
    /// Why it was disabled by the service (a `410 Gone` from its receiver); nil otherwise.
    public var disabledReason: String?
    public var createdAt: String
    public var updatedAt: String

    public init(id: String, url: String, types: [String], description: String?, secret: String, enabled: Bool,
                disabledReason: String?, createdAt: String, updatedAt: String) {
        self.id = id
        self.url = url
        self.types = types
        self.description = description
        self.secret = secret
        self.enabled = enabled
        self.disabledReason = disabledReason
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether a webhook of `types` is sent events of `type`.
    public static func takes(_ type: String, types: [String]) -> Bool { types.contains("*") || types.contains(type) }
}
