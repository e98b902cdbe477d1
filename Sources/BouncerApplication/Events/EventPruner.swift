import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation

/// Drops events older than the retention, once a minute, a thousand at a time: each batch is a
/// small write of its own in the store's queue, so sends are never held behind one long delete.
/// Every instance sharing a store prunes; they only ever find less to do.
package final class EventPruner: Sendable {
    private let task: Task<Void, Never>

    package init(repository: any EventRepository & WebhookRepository, retention: Duration, logger: Logger, interval: Duration = .seconds(60)) {
        task = Task {
            while !Task.isCancelled {
                let cutoff = Timestamp.format(Date().addingTimeInterval(-(retention / .seconds(1))))
                var pruned = 0
                do {
                    while !Task.isCancelled {
                        let batch = try await repository.pruneEvents(before: cutoff, limit: 1000)
                        pruned += batch
                        guard batch == 1000 else { break }
                    }
                    // Finished webhook deliveries are kept as long as events.
                    while !Task.isCancelled, try await repository.pruneDeliveries(before: cutoff, limit: 1000) == 1000 {}
                    if pruned > 0 { logger.info("events pruned", ["events": .int(pruned), "before": .string(cutoff)]) }
                } catch {
                    logger.warn("pruning old events failed; the next round tries again", ["error": .string(String(describing: error))])
                }
                try? await Task.sleep(for: interval)
            }
        }
    }

    package func stop() { task.cancel() }
}
