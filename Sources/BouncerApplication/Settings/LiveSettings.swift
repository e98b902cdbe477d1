import BouncerIdentity
import BouncerLocalization
import BouncerStore
import Foundation
import JSON
import Locking

/// The settings in force, and what follows from them elsewhere (the default locale, the send
/// rate, the rules' inflections).
package final class LiveSettings: Sendable {
    private let current: Locked<(settings: Settings, sequence: UInt64)>
    private let repository: any SettingsRepository
    package let localization: Localization
    private let sendLimiter: RateLimiter
    private let rules: Rules?
    /// What a store without settings of its own has in force.
    private let defaults: Settings

    package init(repository: any SettingsRepository, defaults: Settings, localization: Localization, sendLimiter: RateLimiter,
         rules: Rules? = nil) async throws {
        let stored = try await repository.loadSettings()
        let settings = try Self.decode(stored, defaults: defaults)
        self.current = Locked((settings, stored.sequence))
        self.defaults = defaults
        self.repository = repository
        self.localization = localization
        self.sendLimiter = sendLimiter
        self.rules = rules
        applyEffects(settings)
        try await rules?.setInflections(settings.rule_inflections)
    }

    package var value: Settings { current.withLock { $0.settings } }

    /// The settings' version in force (`ChangeTopic.settings`).
    package var version: UInt64 { current.withLock { $0.sequence } }

    /// Stores `updated` (a partial update merged into `value`), then puts it in force.
    package func update(to updated: Settings, by actor: String) async throws -> Settings {
        let sequence = try await repository.saveSettings(try JSONText.encodedString(updated), by: actor,
                                                         events: [.of(.configChanged, updated)])
        try await put(updated, sequence)
        return updated
    }

    /// Puts stored settings in force, unless a later version already is: another instance's
    /// change, found by the store's version.
    package func apply(_ snapshot: SettingsSnapshot) async throws {
        try await put(try Self.decode(snapshot, defaults: defaults), snapshot.sequence)
    }

    private func put(_ settings: Settings, _ sequence: UInt64) async throws {
        let newer = current.withLock { current in
            guard sequence > current.sequence else { return false }
            current = (settings, sequence)
            return true
        }
        guard newer else { return }
        applyEffects(settings)
        try await rules?.setInflections(settings.rule_inflections)
    }

    /// Stored settings, or the defaults before any were stored. A stored document that does not
    /// decode throws: put in force as the defaults, it would undo every setting an admin made
    /// (a member missing from a document an earlier release wrote takes its default).
    package static func decode(_ snapshot: SettingsSnapshot, defaults: Settings) throws -> Settings {
        guard let json = snapshot.json else { return defaults }
        do {
            return try JSONValue.decode(Settings.self, from: json)
        } catch {
            throw StoredSettingsError(sequence: snapshot.sequence, reason: String(describing: error))
        }
    }

    private func applyEffects(_ settings: Settings) {
        localization.setDefaultLocale(settings.default_locale)
        sendLimiter.setRate(settings.send_rate_per_user)
    }
}

/// The stored settings document does not decode.
package struct StoredSettingsError: Error, CustomStringConvertible {
    package var sequence: UInt64
    package var reason: String

    package var description: String { "the stored settings (version \(sequence)) do not decode: \(reason)" }
}
