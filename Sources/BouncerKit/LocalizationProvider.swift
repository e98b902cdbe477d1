import Foundation

/// The keys of the texts a chat app shows around moderation, as the service names them.
public enum LocalizationKey {
    /// "Are you sure?"
    public static let alertTitle = "message.moderation.alert.title"
    /// "Consider how your comment might make others feel ..."
    public static let alertMessage = "message.moderation.alert.message"
    /// "Send Anyway"
    public static let alertResend = "message.moderation.alert.resend"
    /// "Edit Message" (in the alert)
    public static let alertEdit = "message.moderation.alert.edit"
    /// "Delete Message" (in the alert)
    public static let alertDelete = "message.moderation.alert.delete"
    /// "Message was bounced"
    public static let bounceNotice = "message.bounce.title"
    /// "Flag Message"
    public static let flag = "message.actions.flag"
    /// The flag confirmation's title.
    public static let flagConfirmationTitle = "message.actions.flag.confirmation-title"
    /// The flag confirmation's question.
    public static let flagConfirmationMessage = "message.actions.flag.confirmation-message"
    /// The flag confirmation's button.
    public static let flagConfirmationButton = "message.actions.flag.confirmation-button"
    /// "Edit Message" (in a message's menu)
    public static let edit = "message.actions.edit"
    /// "Delete Message" (in a message's menu)
    public static let delete = "message.actions.delete"
    /// The delete confirmation's title.
    public static let deleteConfirmationTitle = "message.actions.delete.confirmation-title"
    /// The delete confirmation's question.
    public static let deleteConfirmationMessage = "message.actions.delete.confirmation-message"
    /// The delete confirmation's button.
    public static let deleteConfirmationButton = "message.actions.delete.confirmation-button"
    /// "This message was deleted."
    public static let deletedText = "message.deleted.text"
}

/// The texts an app shows, looked up in the order a chat SDK's strings are:
///
/// 1. the app's own `Localizable.strings` (from a bundle, or a dictionary the app gives): an app
///    overrides the texts it wants to word its own way;
/// 2. the service's texts for the device's language (`GET /v1/localization/{locale}`, which
///    carry its admins' overrides), fetched by ``load()``;
/// 3. the defaults bundled in BouncerKit (English), so a text is never missing, even offline.
///
/// A key found nowhere comes back as the key itself.
///
/// ```swift
/// let texts = LocalizationProvider(locale: "de", appStrings: .bundle(.main), client: client)
/// await texts.load()
/// alertView.title = texts[LocalizationKey.alertTitle]   // the app's text, else the server's
/// ```
public final class LocalizationProvider: Sendable {
    /// Where an app's own texts come from.
    public enum AppStrings: Sendable {
        /// `<locale>.lproj/<table>.strings` in `bundle`: the locale's, else its language's, else `Base`'s.
        case bundle(Bundle, table: String = "Localizable")
        /// Texts by key.
        case dictionary([String: String])
    }

    /// Where a text came from.
    public enum Source: Sendable, Hashable {
        /// The app's own strings.
        case app
        /// The service's texts for the locale.
        case server
        /// BouncerKit's bundled defaults.
        case bundled
        /// Nowhere: the key itself is shown.
        case missing
    }

    /// The locale the texts are for.
    public let locale: String
    private let app: [String: String]
    private let client: BouncerClient?
    private let server = ServerStrings()

    /// A provider of texts for `locale`.
    ///
    /// - Parameters:
    ///   - locale: the device's language; the client's locale when nil.
    ///   - appStrings: the app's own texts, which win.
    ///   - client: the client the service's texts are fetched with; none: the app's and the
    ///     bundled texts only.
    public init(locale: String? = nil, appStrings: AppStrings? = nil, client: BouncerClient? = nil) {
        let locale = locale ?? client?.locale ?? "en"
        self.locale = locale
        self.client = client
        switch appStrings {
        case .bundle(let bundle, let table)?: app = Self.strings(in: bundle, table: table, locale: locale)
        case .dictionary(let strings)?: app = strings
        case nil: app = [:]
        }
    }

    /// Fetches the service's texts for ``locale``. Returns whether it could; without them the
    /// app's and the bundled texts are used.
    @discardableResult
    public func load() async -> Bool {
        guard let client else { return false }
        do {
            server.set(try await client.strings(for: locale))
            return true
        } catch {
            return false
        }
    }

    /// The text for `key`.
    public subscript(key: String) -> String { text(key).text }

    /// The text for `key` and where it came from.
    public func text(_ key: String) -> (text: String, source: Source) {
        if let text = app[key] { return (text, .app) }
        if let text = server.get()[key] { return (text, .server) }
        if let text = BundledDefaults.english[key] { return (text, .bundled) }
        return (key, .missing)
    }

    /// `alert` with the app's own texts where it has them: the server's alert is already in the
    /// request's language, and an app's `Localizable.strings` still wins over it.
    public func localized(_ alert: BouncedMessageAlert) -> BouncedMessageAlert {
        var alert = alert
        alert.title = app[LocalizationKey.alertTitle] ?? alert.title
        alert.message = app[LocalizationKey.alertMessage] ?? alert.message
        alert.actions = alert.actions.map { action in
            let key: String? = switch action.id {
            case .resend: LocalizationKey.alertResend
            case .edit: LocalizationKey.alertEdit
            case .delete: LocalizationKey.alertDelete
            case .other: nil
            }
            return AlertAction(id: action.id, title: key.flatMap { app[$0] } ?? action.title)
        }
        return alert
    }

    /// A `.strings` table of `bundle` for `locale`: the locale's own, else its language's, else `Base`'s.
    static func strings(in bundle: Bundle, table: String, locale: String) -> [String: String] {
        let tag = locale.replacingOccurrences(of: "_", with: "-")
        var candidates = [tag]
        var parts = tag.split(separator: "-").map(String.init)
        while parts.count > 1 {
            parts.removeLast()
            candidates.append(parts.joined(separator: "-"))
        }
        candidates.append("Base")
        for candidate in candidates {
            let lproj = bundle.bundleURL.appendingPathComponent("\(candidate).lproj/\(table).strings")
            let url = FileManager.default.fileExists(atPath: lproj.path) ? lproj
                : bundle.url(forResource: table, withExtension: "strings", subdirectory: nil, localization: candidate)
            if let url, let strings = stringsFile(at: url) { return strings }
        }
        return [:]
    }

    /// A `.strings` file's texts (UTF-8, or UTF-16 with a byte-order mark); nil if it cannot be read.
    static func stringsFile(at url: URL) -> [String: String]? {
        guard let data = try? Data(contentsOf: url),
              let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) else { return nil }
        if let strings = plist as? [String: String] { return strings }
        guard let dictionary = plist as? [AnyHashable: Any] else { return nil }
        var strings: [String: String] = [:]
        for (key, value) in dictionary {
            if let key = key as? String, let value = value as? String { strings[key] = value }
        }
        return strings
    }
}

/// The service's texts, set once fetched.
private final class ServerStrings: @unchecked Sendable {
    private let lock = NSLock()
    private var strings: [String: String] = [:]

    func get() -> [String: String] { lock.withLock { strings } }
    func set(_ new: [String: String]) { lock.withLock { strings = new } }
}
