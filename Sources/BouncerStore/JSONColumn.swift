import BouncerDomain
import JSON

/// JSON kept inside a column (a rule's channels, roles and settings, a webhook's event types) is
/// read as strictly as the row around it: a value that does not decode is an error of the row,
/// never a default. A default there would fail open (a rule's channels read as `["*"]` apply it
/// everywhere).
enum JSONColumn {
    /// A rule that applies in every channel, as nearly every rule does.
    static let everyChannel = #"["*"]"#

    /// A rule's channels. A value that is not a list of them throws: read as `["*"]`, a rule meant
    /// for one channel would apply everywhere.
    static func channels(_ text: String) throws(RowDecodingError) -> [String] {
        // Nearly every rule applies everywhere: reading 100,000 rules at start should not decode
        // 100,000 times the same JSON.
        if text == everyChannel { return ["*"] }
        guard let channels = try? JSONValue.decode([String].self, from: text), !channels.isEmpty else {
            throw JSONColumn.unreadable("rules.channels", as: "a list of channels")
        }
        return channels
    }

    /// The roles a rule exempts; a value that is not a list of roles throws (read as none, the
    /// rule would judge the moderators it exempts).
    static func roles(_ text: String) throws(RowDecodingError) -> [Role] {
        if text == "[]" { return [] }
        guard let names = try? JSONValue.decode([String].self, from: text) else { throw JSONColumn.unreadable("rules.exempt_roles", as: "a list of roles") }
        return try names.map { name throws(RowDecodingError) in
            guard let role = Role(rawValue: name) else { throw JSONColumn.unreadable("rules.exempt_roles", as: "a list of roles") }
            return role
        }
    }

    /// Settings the store wrote (NULL for a rule with none). A value that does not read as a
    /// rule's settings throws, as a row's column does: a rate rule read without its settings
    /// would judge nothing.
    static func params(_ text: String?, kind: RuleKind) throws(RowDecodingError) -> RuleParams? {
        guard let text else { return nil }
        guard let fields = try? JSONValue.decode(RuleParams.Fields.self, from: text),
              let params = try? RuleParams(kind: kind, fields: fields) else { throw JSONColumn.unreadable("rules.params", as: "rule settings") }
        return params
    }

    /// A webhook's event types; a value that is not a list of them throws, as a row's column does.
    static func types(_ text: String) throws(RowDecodingError) -> [String] {
        guard let types = try? JSONValue.decode([String].self, from: text) else {
            throw JSONColumn.unreadable("webhooks.types", as: "a list of event types")
        }
        return types
    }

    static func unreadable(_ column: String, as expected: String) -> RowDecodingError {
        RowDecodingError(column: column, expected: expected, found: "TEXT")
    }
}
