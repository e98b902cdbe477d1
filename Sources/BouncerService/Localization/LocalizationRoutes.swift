import BouncerApplication
import BouncerIdentity
import BouncerLocalization
import BouncerStore
import HTTPServer
import JSON

/// `/v1/localization`: the texts clients show, and the admins' overrides of them.
struct LocalizationRoutes: Sendable {
    let localization: Localization
    let audit: Audit

    /// Most keys one `?keys=` may name.
    static let maxRequestedKeys = 200

    struct Strings: Encodable {
        var locale: String
        var strings: [String: String]
    }

    struct LocaleStrings: Encodable {
        var locale: String
        var strings: [String: String]
        var overridden: [String]
        /// After a `.strings` PUT: the file's keys Bouncer does not use (left out of the JSON otherwise).
        var ignored: [String]? = nil
    }

    struct Locales: Encodable {
        struct Entry: Encodable {
            var locale: String
            var bundled: Bool
            var overridden: Bool
        }

        var locales: [Entry]
        var default_locale: String
        @Nullable var next_cursor: String?
    }

    struct Update: Decodable {
        var strings: [String: String]
    }

    func register(in routes: inout Routes) {
        routes.group("/v1/localization") { group in
            let localization = self.localization
            let audit = self.audit
            group.get("", .user) { request, _ in
                let choice = localization.choice(for: request.head)
                var keys = BundledStrings.keys
                if let requested = request.query("keys") {
                    keys = requested.split(separator: ",").map { String($0.trimmingSpaces()) }.filter { !$0.isEmpty }
                    guard keys.count <= Self.maxRequestedKeys else {
                        throw HTTPError.badRequest("invalid_field", "`keys` names more than \(Self.maxRequestedKeys) keys.").keyed("localization.keys", Self.maxRequestedKeys)
                    }
                }
                let strings = Dictionary(keys.map { ($0, choice.text($0)) }, uniquingKeysWith: { first, _ in first })
                var response = try Response.encoded(Strings(locale: choice.tag, strings: strings))
                Localization.mark(&response, choice)
                return response
            }
            group.get("/locales", .user) { _, _ in
                let catalog = localization.catalog
                let entries = catalog.locales.map { Locales.Entry(locale: $0.tag, bundled: $0.bundled, overridden: $0.overridden) }
                return try Response.encoded(Locales(locales: entries, default_locale: catalog.defaultLocale))
            }
            group.get("/{locale}", .user) { request, _ in
                try Self.effective(localization, try Self.validTag(try request.parameter("locale")))
            }
            group.put("/{locale}", .admin) { request, identity in
                let tag = try Self.validTag(try request.parameter("locale"))
                let (strings, ignored) = try Self.readStrings(request)
                let snapshot = try await localization.repository.setOverrides(
                    locale: tag, strings: strings, by: identity.userID,
                    events: [.of(.localizationChanged, LocalizationChange(locale: tag, set: strings.keys.sorted(), removed: []))])
                localization.apply(snapshot)
                try await audit.record(identity, "localization.update", "locale", tag, details: ["keys": strings.keys.sorted().joined(separator: ",")])
                return try Self.effective(localization, tag, ignored: ignored)
            }
            group.delete("/{locale}/{key}", .admin) { request, identity in
                let tag = try Self.validTag(try request.parameter("locale"))
                let key = try request.parameter("key")
                guard let snapshot = try await localization.repository.deleteOverride(
                    locale: tag, key: key, events: [.of(.localizationChanged, LocalizationChange(locale: tag, set: [], removed: [key]))]) else {
                    throw HTTPError(.notFound, code: "override_not_found", detail: "There is no override of `\(key)` for \(tag).", detailArguments: [key, tag])
                }
                localization.apply(snapshot)
                try await audit.record(identity, "localization.update", "locale", tag, details: ["deleted": key])
                return Response(status: .noContent)
            }
    

        }

    }

    /// `ignored`: the keys of a `.strings` body that Bouncer does not use (nil for JSON).
    private static func effective(_ localization: Localization, _ tag: String, ignored: [String]? = nil) throws -> Response {
        guard let effective = localization.catalog.effectiveStrings(for: tag) else {
            throw HTTPError(.notFound, code: "locale_not_found", detail: "There are no texts for the locale \(tag).",
                            detailArguments: [tag])
        }
        var response = try Response.encoded(LocaleStrings(locale: effective.tag, strings: effective.strings,
                                                          overridden: effective.overridden, ignored: ignored))
        response.headers.set("Content-Language", effective.tag)
        return response
    }

    private static func validTag(_ tag: String) throws(HTTPError) -> String {
        guard let canonical = LocaleTag.canonical(tag) else {
            throw .badRequest("invalid_field", "`\(tag)` is not a language tag like `fr` or `pt-BR`.").keyed("localization.tag", tag)
        }
        return canonical
    }

    /// The texts of a PUT, from JSON `{"strings":{...}}` or a `Localizable.strings` body, checked
    /// whole before anything is stored. A `.strings` body may be an app's whole file: the keys
    /// Bouncer does not use are left out and returned (sorted); in JSON they are an error.
    private static func readStrings(_ request: Request) throws -> (strings: [String: String], ignored: [String]?) {
        let contentType = request.headers["content-type"]?.lowercased() ?? ""
        var strings: [String: String]
        var ignored: [String]?
        if contentType.hasPrefix("text/plain") || contentType.hasPrefix("application/x-strings") {
            do {
                strings = try StringsFile.parseDictionary(request.body)
            } catch {
                throw HTTPError(.badRequest, code: "invalid_strings", detail: "The .strings body is malformed at \(error).",
                                extensions: [("line", String(error.line)), ("column", String(error.column))]).keyed("localization.strings", error.line, error.column, error.reason)
            }
            let unused = strings.keys.filter { OverrideRules.check(key: $0, value: strings[$0]!) == .unknownKey($0) }.sorted()
            for key in unused { strings[key] = nil }
            ignored = unused
            guard !strings.isEmpty else {
                throw HTTPError.badRequest("invalid_field", "The file has no key Bouncer uses (\(unused.count) others were ignored).").keyed("localization.no_key", unused.count)
            }
        } else {
            strings = try request.decodeJSON(Update.self).strings
        }
        guard !strings.isEmpty else { throw HTTPError.badRequest("invalid_field", "`strings` is empty.").keyed("localization.empty") }
        guard strings.count <= OverrideRules.maxKeysPerChange else {
            throw HTTPError.badRequest("invalid_field", "At most \(OverrideRules.maxKeysPerChange) keys can change at once.").keyed("localization.too_many", OverrideRules.maxKeysPerChange)
        }
        let violations = strings.sorted { $0.key < $1.key }.compactMap { OverrideRules.check(key: $0.key, value: $0.value) }
        if !violations.isEmpty {
            let keys = violations.map(\.key)
            var error = HTTPError(.badRequest, code: "invalid_override",
                                  detail: violations.map(\.description).joined(separator: "; ") + ".",
                                  extensions: [("keys", "[" + keys.map(JSONText.quoted).joined(separator: ",") + "]")])
            // One violation has a text in every language; several are listed in English.
            if let only = violations.first, violations.count == 1 {
                error = error.keyed("override.\(only.detailKey)", arguments: only.detailArguments)
            }
            throw error
        }
        return (strings, ignored)
    }
}
