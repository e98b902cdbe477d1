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
    /// The version whose effects are all in force (the rules recompiled for its inflections):
    /// what `version` tells, so that nobody waiting for a version, another instance's follower
    /// or a test levelling the instances, acts on it before it holds.
    private let inForce: Locked<UInt64>
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
        self.inForce = Locked(0)
        self.defaults = defaults
        self.repository = repository
        self.localization = localization
        self.sendLimiter = sendLimiter
        self.rules = rules
        applyEffects(settings)
        try await rules?.setInflections(settings.rule_inflections)
        inForce.withLock { $0 = stored.sequence }
    }

    package var value: Settings { current.withLock { $0.settings } }

    /// The settings' version in force (`ChangeTopic.settings`).
    package var version: UInt64 { inForce.withLock { $0 } }

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

    /// Puts `settings` at `sequence` in force, then their effects; the version is told once the
    /// effects hold. A version whose effects failed is taken up again when it is put again.
    private func put(_ settings: Settings, _ sequence: UInt64) async throws {
        let latest = current.withLock { current -> Settings? in
            if sequence > current.sequence { current = (settings, sequence) }
            return current.sequence == sequence ? current.settings : nil
        }
        guard let latest, inForce.withLock({ $0 < sequence }) else { return }
        applyEffects(latest)
        try await rules?.setInflections(latest.rule_inflections)
        inForce.withLock { $0 = max($0, sequence) }
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
