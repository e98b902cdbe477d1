import Locking

/// One immutable state of every text: the bundled translations, the overrides from files and
/// from the API, and the default locale. Each locale's effective table (every key resolved
/// through the fallback order) is computed once here, so a lookup on the request path is one
/// dictionary read. Changing an override builds a new catalog and swaps it in whole.
public final class Catalog: Sendable {
    public struct LocaleInfo: Sendable, Equatable {
        public var tag: String
        public var bundled: Bool
        public var overridden: Bool
    }

    /// The texts a request is answered with, and the tag to put in `Content-Language`.
    public struct Choice: Sendable {
        public let tag: String
        let table: [String: String]

        /// The text for `key`; the key itself when no locale has it.
        public func text(_ key: String) -> String { table[key] ?? key }

        /// The text for `key` with its placeholders filled in.
        public func text(_ key: String, _ arguments: [String]) -> String {
            FormatPlaceholders.format(text(key), arguments)
        }

        /// True when the key exists in some locale (so `text` is a translation, not the key).
        public func has(_ key: String) -> Bool { table[key] != nil }
    }

    public let defaultLocale: String
    public let bundled: [String: [String: String]]
    /// Overrides by locale: API overrides already merged over file overrides.
    public let overrides: [String: [String: String]]
    private let tables: [String: [String: String]]
    private let lowercasedTags: [String: String]
    /// Accept-Language headers seen lately and the tag they chose: clients send the same few
    /// headers over and over, so most requests skip parsing them.
    private let negotiated = Locked<[String: String]>([:])
    private static let negotiatedCapacity = 512

    public init(bundled: [String: [String: String]] = BundledStrings.all, fileOverrides: [String: [String: String]] = [:],
                apiOverrides: [String: [String: String]] = [:], defaultLocale: String = "en") {
        var overrides = fileOverrides
        for (tag, strings) in apiOverrides { overrides[tag, default: [:]].merge(strings) { _, api in api } }
        self.bundled = bundled
        self.overrides = overrides
        self.defaultLocale = LocaleTag.canonical(defaultLocale) ?? "en"

        var tags = Set(bundled.keys).union(overrides.keys)
        for (alias, target) in BundledStrings.aliases where bundled[target] != nil { tags.insert(alias) }
        var tables: [String: [String: String]] = [:]
        for tag in tags {
            tables[tag] = Self.effectiveTable(for: tag, bundled: bundled, overrides: overrides, defaultLocale: self.defaultLocale)
        }
        self.tables = tables
        self.lowercasedTags = Dictionary(uniqueKeysWithValues: tags.map { ($0.lowercased(), $0) })
        let defaultTag = self.defaultLocale
        let matched = LocaleTag.fallbacks(defaultTag).lazy.compactMap { tag in tags.first { $0.lowercased() == tag.lowercased() } }.first
        if let matched, let table = tables[matched] {
            self.defaultChoice = Choice(tag: BundledStrings.aliases[matched] ?? matched, table: table)
        } else {
            self.defaultChoice = Choice(tag: defaultTag, table: bundled["en"] ?? [:])
        }
    }

    /// The lookup order of the contract: for the locale, then each shorter tag of it, then the
    /// default locale: the admin override, then the bundled text. Keys nobody has are left out.
    private static func effectiveTable(for tag: String, bundled: [String: [String: String]],
                                       overrides: [String: [String: String]], defaultLocale: String) -> [String: String] {
        var chain = LocaleTag.fallbacks(tag)
        chain.append(contentsOf: LocaleTag.fallbacks(defaultLocale))
        var table: [String: String] = [:]
        for step in chain.reversed() {
            let source = BundledStrings.aliases[step] ?? step
            table.merge(bundled[source] ?? [:]) { _, nearer in nearer }
            table.merge(overrides[step] ?? [:]) { _, nearer in nearer }
        }
        return table
    }

    /// Every locale with texts: bundled, overridden, or both.
    public var locales: [LocaleInfo] {
        Set(bundled.keys).union(overrides.keys).sorted().map {
            LocaleInfo(tag: $0, bundled: bundled[$0] != nil, overridden: !(overrides[$0]?.isEmpty ?? true))
        }
    }

    /// The locale itself or its nearest shorter tag that has texts, in canonical spelling.
    public func match(_ tag: String) -> String? {
        guard let canonical = LocaleTag.canonical(tag) else { return nil }
        for candidate in LocaleTag.fallbacks(canonical) {
            if let known = lowercasedTags[candidate.lowercased()] { return known }
        }
        return nil
    }

    public func choice(for tag: String) -> Choice? {
        guard let matched = match(tag), let table = tables[matched] else { return nil }
        return Choice(tag: BundledStrings.aliases[matched] ?? matched, table: table)
    }

    /// The texts of requests that name no locale Bouncer has: most requests, so made once.
    public let defaultChoice: Choice

    /// The locale of a request: `?locale=` if given, else the best `Accept-Language` match, else
    /// the default. An unknown `?locale=` falls back like any tag, then to the default.
    public func negotiate(queryLocale: String?, acceptLanguage: String?) -> Choice {
        if let queryLocale {
            return choice(for: queryLocale) ?? defaultChoice
        }
        guard let acceptLanguage else { return defaultChoice }
        if let tag = negotiated.withLock({ $0[acceptLanguage] }), let table = tables[tag] {
            return Choice(tag: BundledStrings.aliases[tag] ?? tag, table: table)
        }
        var chosen = defaultChoice
        for range in AcceptLanguage.parse(acceptLanguage) {
            if range.tag == "*" { break }
            if let choice = choice(for: range.tag) {
                chosen = choice
                break
            }
        }
        if acceptLanguage.utf8.count <= 256, let matched = match(chosen.tag) {
            negotiated.withLock { cache in
                if cache.count >= Self.negotiatedCapacity { cache.removeAll(keepingCapacity: true) }
                cache[acceptLanguage] = matched
            }
        }
        return chosen
    }

    /// The effective texts of one locale, and which of its keys are overridden there.
    public func effectiveStrings(for tag: String) -> (tag: String, strings: [String: String], overridden: [String])? {
        guard let choice = choice(for: tag) else { return nil }
        let matched = match(tag) ?? choice.tag
        return (choice.tag, choice.table, (overrides[matched] ?? [:]).keys.sorted())
    }
}
