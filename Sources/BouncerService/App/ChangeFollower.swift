import BouncerApplication
import BouncerDomain
import BouncerStore
import Foundation
import Locking

/// Keeps this instance's copies of shared state (rules, settings, localization overrides, bans,
/// the classifier in force)
/// level with a store that other instances share: when the store announces a change, and on a
/// timer in case an announcement was missed (a dropped connection), it compares each topic's
/// version in the store with the one in force here and reloads what is behind. Changes this
/// instance made are in force already, at their version, and are not reloaded.
final class ChangeFollower: Sendable {
    private let watch: any ChangeWatch
    private let tasks: [Task<Void, Never>]

    struct Shared: Sendable {
        let store: any ServiceStore
        let rules: Rules
        let settings: LiveSettings
        let localization: Localization
        let bans: BanList
        let classifiers: ClassifierService
    }

    /// Starts following, or nil when the store is this instance's alone.
    init?(_ shared: Shared, interval: Duration = .milliseconds(400), logger: Logger, metrics: Metrics) {
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        guard let watch = shared.store.watchChanges({ wake.yield() }) else { return nil }
        self.watch = watch
        tasks = [
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    wake.yield()
                }
            },
            Task {
                var failing = false
                for await _ in wakeups {
                    do {
                        try await Self.catchUp(shared, logger: logger, metrics: metrics)
                        if failing { logger.info("shared state: reading the store's versions again") }
                        failing = false
                    } catch {
                        if !failing {
                            logger.warn("shared state: cannot read the store's versions; changes other instances make wait",
                                        ["error": .string(String(describing: error))])
                        }
                        failing = true
                    }
                }
            },
        ]
    }

    func stop() {
        watch.stop()
        for task in tasks { task.cancel() }
    }

    /// Reloads every topic whose version in the store is ahead of the one in force.
    static func catchUp(_ shared: Shared, logger: Logger, metrics: Metrics) async throws {
        let versions = try await shared.store.changeVersions()
        func behind(_ topic: ChangeTopic, _ inForce: UInt64) -> Bool {
            guard let stored = versions[topic], stored > inForce else { return false }
            logger.info("shared state: putting in force a change made by another instance",
                        ["topic": .string(topic.rawValue), "version": .int(Int(stored))])
            metrics.add(ServiceMetric.sharedStateReloads, topic.rawValue)
            return true
        }
        if behind(.settings, shared.settings.version) {
            try await shared.settings.apply(try await shared.store.loadSettings())
        }
        if behind(.overrides, shared.localization.version) {
            shared.localization.apply(try await shared.store.allOverrides())
        }
        if behind(.bans, shared.bans.version) {
            shared.bans.apply(try await shared.store.allActiveBans(now: Timestamp.now()))
        }
        if behind(.classifier, shared.classifiers.version) {
            try await shared.classifiers.reload()
        }
        if behind(.rules, shared.rules.version) {
            let snapshot = try await shared.store.allRules()
            do {
                try await shared.rules.apply(snapshot)
            } catch {
                // The instance that made the change compiled these rules before storing them:
                // this one cannot (a different release?). It keeps the rules it has rather than
                // compile the refused set again at every check.
                logger.error("shared state: the rules another instance stored do not compile here; the previous rules stay in force",
                             ["version": .int(Int(snapshot.sequence)), "error": .string(String(describing: error))])
                shared.rules.skip(to: snapshot.sequence)
            }
        }
    }
}
