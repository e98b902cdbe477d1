/// What an override must be to replace a bundled text: for a key Bouncer knows, not too long,
/// and with the same placeholders as the English text, so a client's format call cannot break.
public enum OverrideRules {
    public static let maxValueLength = 2000
    public static let maxKeysPerChange = 1000

    public enum Violation: Equatable, Sendable, CustomStringConvertible {
        case unknownKey(String)
        case tooLong(String)
        case placeholderMismatch(key: String, expected: String)

        public var key: String {
            switch self {
            case .unknownKey(let key), .tooLong(let key), .placeholderMismatch(let key, _): key
            }
        }

        /// The violation's text key as a problem's detail (`error.detail.override.<key>`), and the
        /// values in it.
        public var detailKey: String {
            switch self {
            case .unknownKey: "unknown_key"
            case .tooLong: "too_long"
            case .placeholderMismatch(_, let expected): expected.isEmpty ? "placeholders_none" : "placeholders"
            }
        }

        public var detailArguments: [String] {
            switch self {
            case .unknownKey(let key): [key]
            case .tooLong(let key): [key, String(OverrideRules.maxValueLength)]
            case .placeholderMismatch(let key, let expected): expected.isEmpty ? [key] : [key, expected]
            }
        }

        public var description: String {
            switch self {
            case .unknownKey(let key): "`\(key)` is not a key Bouncer knows"
            case .tooLong(let key): "the text for `\(key)` is longer than \(OverrideRules.maxValueLength) characters"
            case .placeholderMismatch(let key, let expected):
                "the text for `\(key)` must have the placeholders of the English text (\(expected.isEmpty ? "none" : expected))"
            }
        }
    }

    public static func check(key: String, value: String) -> Violation? {
        guard let english = BundledStrings.en[key] else { return .unknownKey(key) }
        guard value.unicodeScalars.count <= maxValueLength else { return .tooLong(key) }
        let expected = FormatPlaceholders.placeholders(in: english)
        guard FormatPlaceholders.placeholders(in: value) == expected else {
            let shown = FormatPlaceholders.segments(english).compactMap { segment -> String? in
                guard case .placeholder(let placeholder) = segment else { return nil }
                return "%\(placeholder.position)$\(placeholder.conversion)"
            }
            return .placeholderMismatch(key: key, expected: shown.joined(separator: " "))
        }
        return nil
    }
}

/// Overrides from `<locale>.lproj/Localizable.strings` files in a directory, as an iOS app's
/// bundle holds them.
public enum LocalizationDirectory {
    public struct Loaded: Sendable {
        public var overrides: [String: [String: String]] = [:]
        /// Entries left out, and why (too long, wrong placeholders).
        public var skipped: [String] = []
        /// Per file, how many of its keys Bouncer does not use: an app's own strings file holds
        /// hundreds of its own texts beside Bouncer's, and they are simply not loaded.
        public var unusedKeys: [(path: String, count: Int)] = []
    }

    public struct LoadError: Error, CustomStringConvertible {
        public var description: String
    }

    public static func load(_ directory: String, list: (String) throws -> [String], read: (String) throws -> [UInt8]) throws -> Loaded {
        var loaded = Loaded()
        for entry in try list(directory).sorted() where entry.hasSuffix(".lproj") {
            let name = String(entry.dropLast(".lproj".count).map { $0 == "_" ? "-" : $0 })  // pt_BR.lproj is pt-BR
            guard let tag = LocaleTag.canonical(name) else {
                loaded.skipped.append("\(entry): not a locale name")
                continue
            }
            let path = directory + "/" + entry + "/Localizable.strings"
            guard let bytes = try? read(path) else { continue }
            let entries: [String: String]
            do {
                entries = try StringsFile.parseDictionary(bytes)
            } catch {
                throw LoadError(description: "\(path): \(error)")
            }
            var unused = 0
            for (key, value) in entries {
                switch OverrideRules.check(key: key, value: value) {
                case nil: loaded.overrides[tag, default: [:]][key] = value
                case .unknownKey?: unused += 1
                case let violation?: loaded.skipped.append("\(path): \(violation)")
                }
            }
            if unused > 0 { loaded.unusedKeys.append((path, unused)) }
        }
        return loaded
    }
}
