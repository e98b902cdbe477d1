import BouncerLocalization
import BouncerStore
import Foundation
import Locking

/// The texts the service answers with: the catalog in force, replaced whole when an admin
/// changes an override. (A request's locale is negotiated by the HTTP API: `choice(for:)`.)
package final class Localization: Sendable {
    private struct State {
        var sequence: UInt64
        var apiOverrides: [String: [String: String]]
        var catalog: Catalog
    }

    private let state: Locked<State>
    package let fileOverrides: [String: [String: String]]
    package let repository: any LocalizationOverrideRepository

    package init(fileOverrides: [String: [String: String]], apiOverrides: OverrideSnapshot,
         defaultLocale: String, repository: any LocalizationOverrideRepository) {
        self.fileOverrides = fileOverrides
        self.repository = repository
        state = Locked(State(sequence: apiOverrides.sequence, apiOverrides: apiOverrides.overrides,
                             catalog: Catalog(fileOverrides: fileOverrides, apiOverrides: apiOverrides.overrides, defaultLocale: defaultLocale)))
    }

    package var catalog: Catalog { state.withLock { $0.catalog } }

    /// The overrides' version in force (`ChangeTopic.overrides`).
    package var version: UInt64 { state.withLock { $0.sequence } }

    /// Rebuilds the catalog around another default locale (a setting admins change).
    package func setDefaultLocale(_ tag: String) {
        state.withLock { state in
            guard state.catalog.defaultLocale != tag else { return }
            state.catalog = Catalog(fileOverrides: fileOverrides, apiOverrides: state.apiOverrides, defaultLocale: tag)
        }
    }

    /// Swaps in the overrides as a committed change left them, unless a later change already
    /// has been (two changes can finish in either order; the later commit wins).
    package func apply(_ snapshot: OverrideSnapshot) {
        state.withLock { state in
            guard snapshot.sequence > state.sequence else { return }
            state = State(sequence: snapshot.sequence, apiOverrides: snapshot.overrides, catalog: Catalog(
                fileOverrides: fileOverrides, apiOverrides: snapshot.overrides, defaultLocale: state.catalog.defaultLocale))
        }
    }

    /// The default language's texts: for what no request asks in (events, webhooks).
    package var defaultChoice: Catalog.Choice { catalog.defaultChoice }

    /// Loads `<locale>.lproj/Localizable.strings` overrides; a malformed file stops the start.
    package static func loadDirectory(_ path: String, logger: Logger) throws -> [String: [String: String]] {
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

