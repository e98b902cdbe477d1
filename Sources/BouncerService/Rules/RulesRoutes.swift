import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerModeration
import BouncerStore
import Foundation
import HTTPServer
import JSON

/// `/v1/rules` and `/v1/moderation/check`.
struct RulesRoutes: Sendable {
    let rules: Rules
    let judge: MessageJudge
    let audit: Audit
    let maxMessageLength: @Sendable () -> Int

    static let maxImportRules = 100_000
    static let importBodyLimit = 32 * 1024 * 1024
    static let maxReportedErrors = 1000
    static let maxNameLength = 200
    static let maxChannels = 100

    struct RuleJSON: Encodable {
        var id, name: String
        var kind: RuleKind
        var pattern: String
        @Nullable var action: RuleAction?
        var channels: [String]
        var enabled: Bool
        var priority: Int
        @Nullable var inflections: Bool?
        var mode: RuleMode
        @Nullable var params: RuleParams.Fields?
        var exempt_roles: [Role]
        @Nullable var new_users_only_seconds: Int?
        var created_at, updated_at, created_by: String

        init(_ rule: StoredRule) {
            id = rule.id; name = rule.name; kind = rule.kind; pattern = rule.pattern; action = rule.action
            channels = rule.channels; enabled = rule.enabled; priority = rule.priority; inflections = rule.inflections
            mode = rule.mode; params = rule.params?.fields; exempt_roles = rule.exemptRoles; new_users_only_seconds = rule.newUsersOnlySeconds
            created_at = rule.createdAt; updated_at = rule.updatedAt; created_by = rule.createdBy
        }
    }

    /// A rule as a client sends it; every field optional, so one type serves create and update.
    struct RuleInput: Decodable {
        var name: String?
        var kind: String?
        var pattern: String?
        var action: String?
        var channels: [String]?
        var enabled: Bool?
        var priority: Int?
        /// Absent: unchanged (or the rule set's setting, for a new rule); `null`: the rule set's
        /// setting; true or false: this rule's own.
        var inflections: Bool??
        var mode: String?
        var params: RuleParams.Fields?
        var exempt_roles: [String]?
        /// Absent: unchanged; `null`: every user.
        var new_users_only_seconds: Int??

        init(name: String? = nil, kind: String?, pattern: String?, action: String?) {
            self.name = name
            self.kind = kind
            self.pattern = pattern
            self.action = action
        }

        enum CodingKeys: String, CodingKey {
            case name, kind, pattern, action, channels, enabled, priority, inflections, mode, params, exempt_roles, new_users_only_seconds
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            kind = try container.decodeIfPresent(String.self, forKey: .kind)
            pattern = try container.decodeIfPresent(String.self, forKey: .pattern)
            action = try container.decodeIfPresent(String.self, forKey: .action)
            channels = try container.decodeIfPresent([String].self, forKey: .channels)
            enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled)
            priority = try container.decodeIfPresent(Int.self, forKey: .priority)
            if container.contains(.inflections) {
                inflections = .some(try container.decodeNil(forKey: .inflections) ? nil : container.decode(Bool.self, forKey: .inflections))
            }
            mode = try container.decodeIfPresent(String.self, forKey: .mode)
            params = try container.decodeIfPresent(RuleParams.Fields.self, forKey: .params)
            exempt_roles = try container.decodeIfPresent([String].self, forKey: .exempt_roles)
            if container.contains(.new_users_only_seconds) {
                new_users_only_seconds = .some(try container.decodeNil(forKey: .new_users_only_seconds)
                    ? nil : container.decode(Int.self, forKey: .new_users_only_seconds))
            }
        }
    }

    struct ImportInput: Decodable {
        var rules: [RuleInput]
    }

    func register(in routes: inout Routes) {
        routes.group("/v1") { group in
            let rules = self.rules
            let judge = self.judge
            let audit = self.audit
            let maxMessageLength = self.maxMessageLength
            group.get("/rules", .moderator) { request, _ in
                let limit = try Pagination.limit(request)
                var query = RuleQuery()
                query.after = try Pagination.after(request)
                if let kind = request.query("kind") { query.kind = try Self.kind(kind) }
                if let action = request.query("action") { query.action = try Self.action(action) }
                if let mode = request.query("mode") { query.mode = try Self.mode(mode) }
                query.enabled = try QueryValues.bool(request, "enabled")
                query.text = try QueryValues.shortText(request, "q", maxLength: 200)
                let filter = query
                let page = try await Page(limit: limit) { count in
                    var query = filter
                    query.limit = count
                    return try await rules.repository.rules(query)
                }
                return try Response.encoded(ListResponse(name: "rules", items: page.items.map(RuleJSON.init), nextCursor: page.nextCursor(\.id)))
            }
            group.post("/rules", .admin) { request, identity in
                let input = try request.decodeJSON(RuleInput.self)
                let now = Timestamp.now()
                let rule = try Self.validated(input, base: nil, id: TimeOrderedID.make(), now: now, by: identity.userID,
                                              attributes: judge.classifier.attributes)
                let snapshot = try await rules.repository.insertRules(
                    [rule], events: [.of(.ruleChanged, RuleChange(change: "created", rule: RuleJSON(rule), count: nil))])
                try await Self.apply(snapshot, rules)
                try await audit.record(identity, "rule.create", "rule", rule.id, details: ["kind": rule.kind.rawValue, "pattern": rule.pattern])
                return try Response.encoded(RuleJSON(rule), status: .created)
            }
            group.get("/rules/{id}", .moderator) { request, _ in
                guard let rule = try await rules.repository.rule(id: try request.parameter("id")) else { throw Self.notFound }
                return try Response.encoded(RuleJSON(rule))
            }
            group.patch("/rules/{id}", .admin) { request, identity in
                let input = try request.decodeJSON(RuleInput.self)
                guard let existing = try await rules.repository.rule(id: try request.parameter("id")) else { throw Self.notFound }
                let rule = try Self.validated(input, base: existing, id: existing.id, now: Timestamp.now(), by: identity.userID,
                                              attributes: judge.classifier.attributes)
                guard let snapshot = try await rules.repository.updateRule(
                    rule, events: [.of(.ruleChanged, RuleChange(change: "updated", rule: RuleJSON(rule), count: nil))]) else { throw Self.notFound }
                try await Self.apply(snapshot, rules)
                try await audit.record(identity, "rule.update", "rule", rule.id, details: ["pattern": rule.pattern, "enabled": String(rule.enabled)])
                return try Response.encoded(RuleJSON(rule))
            }
            group.delete("/rules/{id}", .admin) { request, identity in
                let id = try request.parameter("id")
                guard let snapshot = try await rules.repository.deleteRule(
                    id: id, events: [.of(.ruleChanged, RuleChange(change: "deleted", rule: ["id": id], count: nil))]) else { throw Self.notFound }
                try await Self.apply(snapshot, rules)
                try await audit.record(identity, "rule.delete", "rule", id)
                return Response(status: .noContent)
            }
            group.post("/rules/import", .admin, maxBodyBytes: Self.importBodyLimit) { request, identity in
                let imported = try Self.importedRules(request, by: identity.userID, attributes: judge.classifier.attributes)
                let snapshot = try await rules.repository.insertRules(imported, events: [.of(.ruleChanged, RuleChange<RuleJSON>.imported(imported.count))])
                try await Self.apply(snapshot, rules)
                try await audit.record(identity, "rule.import", "rules", String(imported.count), details: ["count": String(imported.count)])
                return try Response.encoded(["imported": imported.count], status: .created)
            }
            group.post("/moderation/check", .moderator) { request, _ in
                struct CheckInput: Decodable {
                    var text: String
                    var channel_id: String?
                }
                let input = try request.decodeJSON(CheckInput.self)
                do throws(MessageError) { try MessageText.validate(input.text, maxLength: maxMessageLength()) } catch { throw error.problem() }
                if let channel = input.channel_id, !ChannelPattern.isChannelID(channel) {
                    throw HTTPError.badRequest("invalid_field", "`channel_id` \(ChannelPattern.invalidIDDetail)").keyed("field.channel_id", "channel_id")
                }
                return try Response.encoded(CheckResult(judge.check(input.text, channel: input.channel_id)))
            }
    

        }

    }

    static let notFound = HTTPError(.notFound, code: "rule_not_found", detail: "There is no such rule.")

    private static func apply(_ snapshot: RuleSnapshot, _ rules: Rules) async throws(HTTPError) {
        do {
            try await rules.apply(snapshot)
        } catch {
            throw HTTPError(.unprocessableContent, code: "invalid_pattern", detail: "The rules do not compile together: \(error.reason)").keyed("pattern.compile", error.reason)
        }
    }

    static func kind(_ text: String) throws(HTTPError) -> RuleKind {
        guard let kind = RuleKind(rawValue: text) else {
            throw .badRequest("invalid_field", "`kind` must be one of \(RuleKind.allCases.map(\.rawValue).joined(separator: ", ")).").keyed("field.one_of", "kind", RuleKind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return kind
    }

    static func action(_ text: String) throws(HTTPError) -> RuleAction {
        guard let action = RuleAction(rawValue: text) else {
            throw .badRequest("invalid_field", "`action` must be one of \(RuleAction.allCases.map(\.rawValue).joined(separator: ", ")).").keyed("field.one_of", "action", RuleAction.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return action
    }

    /// Longest `new_users_only_seconds`: a year.
    static let maxNewUserSeconds = 366 * 86_400

    /// A complete, checked rule from a client's fields over `base` (for an update). `attributes`:
    /// what the classifier in force scores, which a score rule must name one of.
    static func validated(_ input: RuleInput, base: StoredRule?, id: String, now: String, by actor: String,
                          attributes: [String]) throws(HTTPError) -> StoredRule {
        guard let kind = try input.kind.map(kind) ?? base?.kind else { throw HTTPError.badRequest("invalid_field", "`kind` is required.").keyed("field.missing", "kind") }
        var action: RuleAction?
        if kind.takesAction {
            guard let chosen = try input.action.map(Self.action) ?? base?.action else {
                throw HTTPError.badRequest("invalid_field", "`action` is required for \(kind.rawValue) rules.").keyed("rules.action_required", kind.rawValue)
            }
            action = chosen
        } else if input.action != nil {
            throw HTTPError.badRequest("invalid_field", "`allow` rules take no `action`.").keyed("rules.allow_no_action")
        }
        // A rate rule has settings instead of a pattern; a rule that changes kind leaves the
        // other behind.
        let sameKind = base?.kind == kind
        var pattern = ""
        var params: RuleParams?
        if kind.takesParams {
            // A pattern given is not used, but held to the same bound as any.
            if let given = input.pattern, given.unicodeScalars.count > PatternCompiler.maxPatternLength {
                let reason = "the pattern is longer than \(PatternCompiler.maxPatternLength) characters"
                throw HTTPError(.unprocessableContent, code: "invalid_pattern", detail: "The pattern cannot be used: \(reason).",
                                extensions: [("reason", JSONText.quoted(reason))]).keyed("pattern.too_long", PatternCompiler.maxPatternLength)
            }
            guard let fields = input.params ?? (sameKind ? base?.params?.fields : nil) else {
                throw HTTPError.badRequest("invalid_field", "`params` is required for \(kind.rawValue) rules.").keyed("rules.params_required", kind.rawValue)
            }
            do {
                params = try RuleParams(kind: kind, fields: fields)
            } catch {
                throw HTTPError.badRequest("invalid_field", error.reason + ".").keyed(error.key, arguments: error.arguments)
            }
            if case .score(let attribute, _)? = params, !attributes.contains(attribute) {
                let known = attributes.isEmpty ? "none: harm scores are off" : attributes.joined(separator: ", ")
                throw HTTPError.badRequest("invalid_field", "`params.attribute` \(attribute) is not scored by the classifier in force (it scores \(known)).")
                    .keyed("rules.unknown_attribute", attribute, known)
            }
        } else {
            if input.params != nil { throw HTTPError.badRequest("invalid_field", "\(kind.rawValue) rules take no `params`.").keyed("rules.no_params", kind.rawValue) }
            guard let given = input.pattern ?? (base?.kind.takesParams == false ? base?.pattern : nil) else {
                throw HTTPError.badRequest("invalid_field", "`pattern` is required.").keyed("field.missing", "pattern")
            }
            pattern = given
        }
        let name = input.name ?? base?.name ?? String(String.UnicodeScalarView((kind.takesParams ? kind.rawValue : pattern).unicodeScalars.prefix(100)))
        guard name.unicodeScalars.count <= maxNameLength else { throw HTTPError.badRequest("invalid_field", "`name` is longer than \(maxNameLength) characters.").keyed("field.too_long", "name", maxNameLength) }
        let channels = input.channels ?? base?.channels ?? ["*"]
        guard !channels.isEmpty, channels.count <= maxChannels, channels.allSatisfy(ChannelPattern.isValid) else {
            throw HTTPError.badRequest("invalid_field", "`channels` must hold 1-\(maxChannels) channel ids or patterns like `messaging:*`.").keyed("rules.channels", maxChannels)
        }
        let priority = input.priority ?? base?.priority ?? 0
        guard (-1_000_000...1_000_000).contains(priority) else {
            throw HTTPError.badRequest("invalid_field", "`priority` must be from -1000000 to 1000000.").keyed("field.range", "priority", -1_000_000, 1_000_000)
        }
        let mode = try input.mode.map(Self.mode) ?? base?.mode ?? .enforce
        var exemptRoles = base?.exemptRoles ?? []
        if let names = input.exempt_roles {
            var roles: [Role] = []
            for name in names {
                guard let role = Role(rawValue: name) else {
                    throw HTTPError.badRequest("invalid_field", "`exempt_roles` holds roles: \(Role.allCases.map(\.rawValue).joined(separator: ", ")).").keyed("rules.exempt_roles", Role.allCases.map(\.rawValue).joined(separator: ", "))
                }
                if !roles.contains(role) { roles.append(role) }
            }
            exemptRoles = roles
        }
        let newUsersOnly = input.new_users_only_seconds ?? base?.newUsersOnlySeconds
        if let newUsersOnly, !(1...maxNewUserSeconds).contains(newUsersOnly) {
            throw HTTPError.badRequest("invalid_field", "`new_users_only_seconds` must be from 1 to \(maxNewUserSeconds), or null.").keyed("rules.new_users_only", maxNewUserSeconds)
        }
        if !kind.takesParams {
            do {
                try PatternCompiler.validate(kind: kind, pattern: pattern)
            } catch {
                throw HTTPError(.unprocessableContent, code: "invalid_pattern", detail: "The pattern cannot be used: \(error.reason).",
                                extensions: [("reason", JSONText.quoted(error.reason))])
                    .keyed(error.key.map { "pattern." + $0 } ?? "pattern.other", arguments: error.key == nil ? [error.reason] : error.arguments)
            }
        }
        let definition = RuleDefinition(id: id, name: name, kind: kind, pattern: pattern, action: action, channels: channels,
                                        enabled: input.enabled ?? base?.enabled ?? true, priority: priority,
                                        inflections: input.inflections ?? base?.inflections, mode: mode, params: params,
                                        exemptRoles: exemptRoles, newUsersOnlySeconds: newUsersOnly)
        return StoredRule(definition, createdAt: base?.createdAt ?? now, updatedAt: now, createdBy: base?.createdBy ?? actor)
    }

    static func mode(_ text: String) throws(HTTPError) -> RuleMode {
        guard let mode = RuleMode(rawValue: text) else {
            throw .badRequest("invalid_field", "`mode` must be one of \(RuleMode.allCases.map(\.rawValue).joined(separator: ", ")).").keyed("field.one_of", "mode", RuleMode.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return mode
    }

    /// The rules of an import, all checked: JSON `{"rules":[...]}` or one pattern a line with
    /// `kind` and `action` in the query. Any refused rule refuses the whole import.
    static func importedRules(_ request: Request, by actor: String, attributes: [String]) throws(HTTPError) -> [StoredRule] {
        let contentType = request.headers["content-type"]?.lowercased() ?? ""
        var inputs: [(position: Int, input: RuleInput)] = []
        let positionName: String
        // Checked whatever the body, so that a typo in the query is not silently ignored.
        let queryKind = try request.query("kind").map { text throws(HTTPError) in try kind(text).rawValue }
        let queryAction = try request.query("action").map { text throws(HTTPError) in try action(text).rawValue }
        if contentType.hasPrefix("text/plain") {
            positionName = "line"
            let kind = queryKind ?? "word"
            let action = queryAction
            guard let text = String(validating: request.body, as: UTF8.self) else {
                throw HTTPError.badRequest("invalid_body", "The body is not UTF-8 text.")
            }
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let pattern = String(line.hasSuffix("\r") ? line.dropLast() : line).trimmingCharacters(in: .whitespaces)
                guard !pattern.isEmpty, !pattern.hasPrefix("#") else { continue }
                inputs.append((index + 1, RuleInput(name: nil, kind: kind, pattern: pattern, action: action)))
                if inputs.count > maxImportRules { break }
            }
        } else {
            positionName = "index"
            inputs = try request.decodeJSON(ImportInput.self).rules.enumerated().map { ($0.offset, $0.element) }
        }
        guard !inputs.isEmpty else { throw HTTPError.badRequest("invalid_field", "There are no rules to import.").keyed("rules.import_empty") }
        guard inputs.count <= maxImportRules else {
            throw HTTPError(.badRequest, code: "too_many_rules", detail: "One import takes at most \(maxImportRules) rules.", detailArguments: [String(maxImportRules)])
        }
        let now = Timestamp.now()
        var accepted: [StoredRule] = []
        accepted.reserveCapacity(inputs.count)
        var refusals: [String] = []
        var refusedCount = 0
        for (position, input) in inputs {
            do {
                accepted.append(try validated(input, base: nil, id: TimeOrderedID.make(), now: now, by: actor, attributes: attributes))
            } catch {
                refusedCount += 1
                if refusals.count < maxReportedErrors {
                    refusals.append("{\"\(positionName)\":\(position),\"pattern\":\(JSONText.quoted(input.pattern ?? "")),"
                        + "\"reason\":\(JSONText.quoted(error.detail))}")
                }
            }
        }
        guard refusals.isEmpty else {
            throw HTTPError(.unprocessableContent, code: "import_refused",
                            detail: "\(refusedCount) of \(inputs.count) rules cannot be used; nothing was imported.",
                            extensions: [("errors", "[" + refusals.joined(separator: ",") + "]"), ("refused", String(refusedCount))],
                            detailArguments: [String(refusedCount), String(inputs.count)])
        }
        return accepted
    }
}
