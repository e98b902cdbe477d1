import BouncerDomain
import BouncerStore
import Dispatch
import Foundation
import Locking

/// Delivers events to webhooks, at least once. Every `pollInterval` it turns the events written
/// since each webhook's cursor into deliveries (in the store, so they outlive a crash), takes
/// those that are due, and POSTs them: at most `perWebhook` at once to one webhook and `total` at
/// once in all, so a slow receiver holds only its own share. A delivery that fails is tried again
/// after growing delays (`firstRetry`, three times longer each time, at most 8 hours) for
/// `retryFor`, then is failed; a `410 Gone` disables its webhook. Several instances may run one
/// each: the store hands each delivery to one of them at a time.
package final class WebhookDispatcher: Sendable {
    package struct Limits: Sendable {
        package var perWebhook = 4
        package var total = 16
        package var firstRetry: Duration = .seconds(5)
        package var retryFor: Duration = .seconds(24 * 3600)
        package var pollInterval: Duration = .milliseconds(250)
        /// How long a taken delivery is this dispatcher's before another may take it again.
        package var claim: Duration = .seconds(60)

        package init(firstRetry: Duration = .seconds(5), retryFor: Duration = .seconds(24 * 3600), pollInterval: Duration = .milliseconds(250), claim: Duration = .seconds(60)) {
            self.firstRetry = firstRetry
            self.retryFor = retryFor
            self.pollInterval = pollInterval
            self.claim = claim
        }
    }

    private let repository: any WebhookRepository
    private let sender: WebhookSender
    /// Where the `matrix:` webhook's deliveries go, when a homeserver is configured.
    private let matrix: MatrixHomeserver?
    private let limits: Limits
    private let logger: Logger
    private let metrics: Metrics
    /// Attempts under way, by webhook; a webhook is in it while its worker runs.
    private let inFlight = Locked<[String: Int]>([:])
    private let slots: AsyncSlots
    private let task = Locked<Task<Void, Never>?>(nil)

    package init(repository: any WebhookRepository, sender: WebhookSender, matrix: MatrixHomeserver? = nil, limits: Limits = Limits(),
         logger: Logger, metrics: Metrics) {
        self.repository = repository
        self.sender = sender
        self.matrix = matrix
        self.limits = limits
        self.logger = logger
        self.metrics = metrics
        slots = AsyncSlots(limits.total)
    }

    package func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task { await run() }
        }
    }

    package func stop() {
        task.withLock { $0?.cancel() }
        sender.close()
        matrix?.close()
    }

    package var deliveriesInFlight: Int { inFlight.withLock { $0.values.reduce(0, +) } }

    private func run() async {
        var failing = false
        while !Task.isCancelled {
            do {
                try await round()
                if failing {
                    logger.info("webhook deliveries go on")
                    failing = false
                }
            } catch is CancellationError {
                return
            } catch {
                if !failing {
                    logger.warn("webhook deliveries cannot read the store; retrying every second", ["error": .string(String(describing: error))])
                    failing = true
                }
                try? await Task.sleep(for: .seconds(1))
            }
            try? await Task.sleep(for: limits.pollInterval)
        }
    }

    /// One round: new events into deliveries, then a worker for each webhook with deliveries due
    /// (one that is still at work goes on).
    private func round() async throws {
        let hooks = try await repository.webhooks().filter(\.enabled)
        for hook in hooks {
            // A webhook far behind (just re-enabled, or after an outage) catches up a page at a time.
            var pages = 0
            while try await repository.fanOut(webhookID: hook.id, limit: 500, now: Timestamp.now()) == 500, pages < 20 { pages += 1 }
        }
        for hook in hooks {
            let started = inFlight.withLock { workers -> Bool in
                guard workers[hook.id] == nil else { return false }
                workers[hook.id] = 0
                return true
            }
            if started { Task { await work(for: hook) } }
        }
    }

    private enum Step: Sendable {
        case attempted(DeliveryResult)
        /// Time to look for more due deliveries while attempts are under way.
        case tick
    }

    /// Attempts the webhook's due deliveries, `perWebhook` at once, taking more as slots free up
    /// (and every `pollInterval` while all are busy: a slow receiver's attempt does not hold the
    /// others back), and records outcomes a batch at a time, until none is due or under way.
    private func work(for webhook: StoredWebhook) async {
        defer { inFlight.withLock { $0[webhook.id] = nil } }
        var hook = webhook
        // Claimed but not yet attempted: few enough to be attempted within their claim even if
        // every attempt runs to its timeout.
        let batch = limits.perWebhook * 4
        await withTaskGroup(of: Step.self) { group in
            var queued: [WebhookDelivery] = []
            var results: [DeliveryResult] = []
            var running = 0
            var ticking = false
            var claimable = true
            while !Task.isCancelled {
                if queued.isEmpty && claimable {
                    // As it is now: a change of its URL or secret, or its disabling, holds for
                    // what is taken from here on.
                    if let current = try? await repository.webhook(id: hook.id) { hook = current }
                    let now = Date()
                    queued = (try? await repository.claimDeliveries(
                        webhookID: hook.id, limit: batch, now: Timestamp.format(now),
                        until: Timestamp.format(now.addingTimeInterval(limits.claim / .seconds(1))))) ?? []
                    claimable = false
                }
                while running < limits.perWebhook, !queued.isEmpty {
                    let (delivery, hook) = (queued.removeFirst(), hook)
                    group.addTask { .attempted(await self.attemptCounted(delivery, to: hook)) }
                    running += 1
                }
                if running == 0 && queued.isEmpty { break }
                if !ticking && running > 0 {
                    group.addTask { [pollInterval = limits.pollInterval] in
                        try? await Task.sleep(for: pollInterval)
                        return .tick
                    }
                    ticking = true
                }
                switch await group.next() {
                case .attempted(let result):
                    running -= 1
                    results.append(result)
                    claimable = true
                case .tick:
                    ticking = false
                    claimable = true
                case nil:
                    break
                }
                if results.count >= batch || (running == 0 && queued.isEmpty) || (!results.isEmpty && !ticking) {
                    record(results, for: hook)
                    results = []
                }
            }
            group.cancelAll()
            record(results, for: hook)
        }
    }

    private func record(_ results: [DeliveryResult], for hook: StoredWebhook) {
        guard !results.isEmpty else { return }
        for result in results {
            metrics.add(ServiceMetric.webhookAttempts, result.state == .delivered ? "delivered" : "failed")
        }
        let (repository, logger) = (self.repository, self.logger)
        Task {
            do {
                try await repository.recordDeliveries(results, now: Timestamp.now())
            } catch {
                // Their claims run out and they are taken again: at least once.
                logger.warn("webhook deliveries' outcomes could not be recorded; they will be tried again",
                            ["webhook_id": .string(hook.id), "deliveries": .int(results.count), "error": .string(String(describing: error))])
            }
        }
    }

    /// An attempt, counted in flight while it lasts; at most `total` at once across webhooks.
    private func attemptCounted(_ delivery: WebhookDelivery, to hook: StoredWebhook) async -> DeliveryResult {
        await slots.acquire()
        inFlight.withLock { $0[hook.id, default: 0] += 1 }
        defer {
            inFlight.withLock { $0[hook.id, default: 1] -= 1 }
            slots.release()
        }
        return await attempt(delivery, to: hook)
    }

    /// One attempt, and what follows from it.
    private func attempt(_ delivery: WebhookDelivery, to hook: StoredWebhook) async -> DeliveryResult {
        let outcome: WebhookSender.Outcome
        if hook.url.hasPrefix(MatrixHomeserver.scheme) {
            // The homeserver as configured, never the row's URL: the bot's token goes nowhere else.
            outcome = await matrix?.deliver(delivery) ?? WebhookSender.Outcome(status: nil, error: "no Matrix homeserver is configured")
        } else if let url = URL(string: hook.url) {
            let timestamp = Int(Date().timeIntervalSince1970)
            let body = Array(delivery.payload.utf8)
            var headers = ["Content-Type": "application/json", "User-Agent": "Bouncer-Webhooks/\(BouncerVersion.current)",
                           "webhook-id": delivery.messageID, "webhook-timestamp": String(timestamp)]
            headers["webhook-signature"] = WebhookSignature.sign(id: delivery.messageID, timestamp: timestamp, body: body, secret: hook.secret)
            outcome = await sender.post(url, headers: headers, body: body)
        } else {
            outcome = WebhookSender.Outcome(status: nil, error: "the URL cannot be used")
        }
        return Self.result(of: outcome, for: delivery, limits: limits, now: Date())
    }

    /// A 2xx is delivered; a 410 fails the delivery and disables the webhook; anything else is
    /// tried again after the next delay, until `retryFor` has passed since the delivery was made
    /// (the last attempt falls at that time).
    package static func result(of outcome: WebhookSender.Outcome, for delivery: WebhookDelivery, limits: Limits, now: Date) -> DeliveryResult {
        let error = outcome.status.map { "HTTP \($0)" } ?? outcome.error
        if let status = outcome.status, (200..<300).contains(status) {
            return DeliveryResult(deliveryID: delivery.id, webhookID: delivery.webhookID, state: .delivered,
                                  nextAttemptAt: Timestamp.format(now), status: status, error: nil)
        }
        if outcome.status == 410 {
            return DeliveryResult(deliveryID: delivery.id, webhookID: delivery.webhookID, state: .failed, nextAttemptAt: Timestamp.format(now),
                                  status: 410, error: error, disableWebhook: "the receiver answered 410 Gone")
        }
        let created = Self.date(delivery.createdAt) ?? now
        let giveUp = created.addingTimeInterval(limits.retryFor / .seconds(1))
        guard now < giveUp else {
            return DeliveryResult(deliveryID: delivery.id, webhookID: delivery.webhookID, state: .failed, nextAttemptAt: Timestamp.format(now),
                                  status: outcome.status, error: error)
        }
        let next = min(now.addingTimeInterval(delay(afterAttempt: delivery.attempts, first: limits.firstRetry)), giveUp)
        return DeliveryResult(deliveryID: delivery.id, webhookID: delivery.webhookID, state: .pending, nextAttemptAt: Timestamp.format(next),
                              status: outcome.status, error: error)
    }

    /// Seconds to wait after attempt `attempt` (1, 2, ...): `first`, three times longer each
    /// time, at most 8 hours.
    package static func delay(afterAttempt attempt: Int, first: Duration) -> TimeInterval {
        let exponent = Double(max(0, min(attempt - 1, 20)))
        return min((first / .seconds(1)) * pow(3, exponent), 8 * 3600)
    }

    private static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
