import BouncerApplication
import BouncerStore
import Foundation
import HTTPServer
import Locking

/// Whether the store takes writes now. While the disk is full or failing, every refused request
/// is a 503 `store_unavailable` with `Retry-After` (the client can try again; nothing it sent was
/// kept), counted in `bouncer_store_unavailable_total`, logged at most once a second with how many
/// were refused since the last line (a full disk should not get a line a request), and `/readyz`
/// says 503 until a write commits again.
final class StoreAvailability: Sendable {
    /// How long `/readyz` reports the store unavailable after the last refusal when no write has
    /// committed since (a quiet service has nothing to show it recovered).
    static let readinessHold: Duration = .seconds(5)
    static let retryAfterSeconds = 1

    /// Only the last refusal: `/readyz` reads it.
    private let lastRefusal = Locked<ContinuousClock.Instant?>(nil)
    /// A line a second at most for each kind of refusal, with how many there were since the last.
    private let refusalLog = LogLimiter()
    private let conflictLog = LogLimiter()
    private let logger: Logger
    private let metrics: Metrics

    init(logger: Logger, metrics: Metrics) {
        self.logger = logger
        self.metrics = metrics
    }

    /// The answer for an error a handler threw, if it says the store cannot take writes now.
    func problem(for error: any Error) -> HTTPError? {
        guard let error = error as? any StoreFailure else { return nil }
        if error.isConflict {
            // The store is up; this write met others' again and again. Not a refusal of the
            // store: `/readyz` stays as it is.
            metrics.add(ServiceMetric.storeConflicts)
            if let refused = conflictLog.due() {
                logger.warn("writes refused with 503 after conflicts with other instances",
                            ["refused": .int(refused), "error": .string(error.description)])
            }
            return HTTPError(.serviceUnavailable, code: "store_unavailable",
                             detail: "The store could not settle this write with other instances' writes; nothing was kept. Try again shortly.",
                             headers: ["Retry-After": String(Self.retryAfterSeconds)]).keyed("store.conflict")
        }
        guard error.isUnavailable else { return nil }
        refused(error)
        return HTTPError(.serviceUnavailable, code: "store_unavailable",
                         detail: "The store cannot take this now (its disk may be full or failing, or its server down); nothing was kept. Try again shortly.",
                         headers: ["Retry-After": String(Self.retryAfterSeconds)]).keyed("store.unavailable")
    }

    private func refused(_ error: any StoreFailure) {
        metrics.add(ServiceMetric.storeUnavailable)
        lastRefusal.withLock { $0 = ContinuousClock.now }
        if let refused = refusalLog.due() {
            logger.error("store unavailable: requests refused with 503", ["refused": .int(refused), "error": .string(error.description)])
        }
    }

    /// A group of writes committed: the store takes writes again.
    func committed() {
        lastRefusal.withLock { $0 = nil }
    }

    /// Whether `/readyz` should say the store is unavailable.
    var isUnavailable: Bool {
        lastRefusal.withLock { last in
            guard let last else { return false }
            return ContinuousClock.now - last < Self.readinessHold
        }
    }
}

/// Counts events and says when a log line is due: at the first, then at most once a second, with
/// how many there were since the last line (a full disk should not get a line a request).
private final class LogLimiter: Sendable {
    private struct State {
        var lastLine: ContinuousClock.Instant?
        var sinceLine = 0
    }

    private let state = Locked(State())

    /// Counts one; returns how many since the last line when a line is due now.
    func due() -> Int? {
        let now = ContinuousClock.now
        return state.withLock { state in
            state.sinceLine += 1
            if let last = state.lastLine, now - last < .seconds(1) { return nil }
            state.lastLine = now
            defer { state.sinceLine = 0 }
            return state.sinceLine
        }
    }
}
