import BouncerLocalization
import BouncerStore
import Foundation
import HTTPServer
import Locking

/// The texts the service answers with: the catalog in force, replaced whole when an admin
/// changes an override, and the negotiation of each request's locale.
final class Localization: Sendable {
    private struct State {
        var sequence: UInt64
        var apiOverrides: [String: [String: String]]
        var catalog: Catalog
    }

    private let state: Locked<State>
    let fileOverrides: [String: [String: String]]
    let repository: any LocalizationOverrideRepository

    init(fileOverrides: [String: [String: String]], apiOverrides: OverrideSnapshot,
         defaultLocale: String, repository: any LocalizationOverrideRepository) {
        self.fileOverrides = fileOverrides
        self.repository = repository
        state = Locked(State(sequence: apiOverrides.sequence, apiOverrides: apiOverrides.overrides,
                             catalog: Catalog(fileOverrides: fileOverrides, apiOverrides: apiOverrides.overrides, defaultLocale: defaultLocale)))
    }

    var catalog: Catalog { state.withLock { $0.catalog } }

    /// The overrides' version in force (`ChangeTopic.overrides`).
    var version: UInt64 { state.withLock { $0.sequence } }

    /// Rebuilds the catalog around another default locale (a setting admins change).
    func setDefaultLocale(_ tag: String) {
        state.withLock { state in
            guard state.catalog.defaultLocale != tag else { return }
            state.catalog = Catalog(fileOverrides: fileOverrides, apiOverrides: state.apiOverrides, defaultLocale: tag)
        }
    }

    /// Swaps in the overrides as a committed change left them, unless a later change already
    /// has been (two changes can finish in either order; the later commit wins).
    func apply(_ snapshot: OverrideSnapshot) {
        state.withLock { state in
            guard snapshot.sequence > state.sequence else { return }
            state = State(sequence: snapshot.sequence, apiOverrides: snapshot.overrides, catalog: Catalog(
                fileOverrides: fileOverrides, apiOverrides: snapshot.overrides, defaultLocale: state.catalog.defaultLocale))
        }
    }

    /// The locale a request is answered in.
    func choice(for head: RequestHead?) -> Catalog.Choice {
        let catalog = self.catalog
        guard let head else { return catalog.defaultChoice }
        return catalog.negotiate(queryLocale: Self.queryLocale(head), acceptLanguage: head.headers["accept-language"])
    }

    private static func queryLocale(_ head: RequestHead) -> String? {
        guard let query = head.query, query.contains("locale=") else { return nil }
        return Request(head: head, id: "").query("locale")
    }

    /// Marks a response as carrying texts in `choice`'s language.
    static func mark(_ response: inout Response, _ choice: Catalog.Choice) {
        response.headers.set("Content-Language", choice.tag)
        response.headers.set("Vary", "Accept-Language")
    }

    /// Loads `<locale>.lproj/Localizable.strings` overrides; a malformed file stops the start.
    static func loadDirectory(_ path: String, logger: Logger) throws -> [String: [String: String]] {
        let loaded = try LocalizationDirectory.load(
            path,
            list: { try FileManager.default.contentsOfDirectory(atPath: $0) },
            read: { Array(try Data(contentsOf: URL(fileURLWithPath: $0))) })
        for reason in loaded.skipped { logger.warn("localization override skipped", ["reason": .string(reason)]) }
        for (file, count) in loaded.unusedKeys {
            logger.info("localization file: keys Bouncer does not use were skipped", ["file": .string(file), "skipped": .int(count)])
        }
        logger.info("localization overrides loaded", ["directory": .string(path), "locales": .int(loaded.overrides.count)])
        return loaded.overrides
    }
}

/// Problem JSON with the title and, where a translation exists, the detail in the request's
/// language.
struct LocalizedProblemRenderer: ProblemRenderer {
    let localization: Localization
    /// Knows the store's failures that are a 503, not a 500.
    var availability: StoreAvailability?

    /// A refusal of the message use cases is its problem wherever it is thrown from (a chat
    /// server's hook included); a failure of the store is the 503 it calls for.
    func problem(for error: any Error) -> HTTPError? {
        if let refusal = error as? MessageError { return refusal.problem() }
        return availability?.problem(for: error)
    }

    func render(_ error: HTTPError, for head: RequestHead?, requestID: String) -> Response {
        let choice = localization.choice(for: head)
        let titleKey = "error.\(error.status.code).title"
        let title = choice.has(titleKey) ? choice.text(titleKey) : error.status.reasonPhrase
        let detail = Self.detail(error, in: choice)
        var response = DefaultProblemRenderer.problemResponse(error, title: title, detail: detail, requestID: requestID)
        Localization.mark(&response, choice)
        return response
    }

    /// The text key of an error's detail: its own (`error.detail.<key>`) when the throw site
    /// names one, else its code's (`error.<code>.detail`). A detail key is never exchanged for
    /// the code's: a code with several details has no text for them all.
    static func detailKey(_ error: HTTPError) -> String {
        error.detailKey.map { "error.detail.\($0)" } ?? "error.\(error.code).detail"
    }

    /// The detail in `choice`'s language: the key's text with the error's values, when the text
    /// takes as many as the error has; else the English detail as thrown.
    static func detail(_ error: HTTPError, in choice: Catalog.Choice) -> String {
        let key = detailKey(error)
        guard choice.has(key), FormatPlaceholders.placeholders(in: choice.text(key)).count == error.detailArguments.count else {
            return error.detail
        }
        let text = error.detailPrefix + choice.text(key, error.detailArguments)
        assert(error.detailKey == nil || BundledStrings.en[key].map { error.detailPrefix + FormatPlaceholders.format($0, error.detailArguments) } == error.detail,
               "the English text of \(key) differs from the detail thrown: \(error.detail)")
        return text
    }
}
