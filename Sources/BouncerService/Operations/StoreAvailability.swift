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

    private struct State {
        var lastRefusal: ContinuousClock.Instant?
        var lastLog: ContinuousClock.Instant?
        var refusedSinceLog = 0
    }

    private let state = Locked(State())
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
            metrics.add("bouncer_store_conflicts_total")
            logger.warn("write refused with 503 after conflicts with other instances", ["error": .string(error.description)])
            return HTTPError(.serviceUnavailable, code: "store_unavailable",
                             detail: "The store could not settle this write with other instances' writes; nothing was kept. Try again shortly.",
                             headers: ["Retry-After": String(Self.retryAfterSeconds)])
        }
        guard error.isUnavailable else { return nil }
        refused(error)
        return HTTPError(.serviceUnavailable, code: "store_unavailable",
                         detail: "The store cannot take this now (its disk may be full or failing, or its server down); nothing was kept. Try again shortly.",
                         headers: ["Retry-After": String(Self.retryAfterSeconds)])
    }

    private func refused(_ error: any StoreFailure) {
        metrics.add("bouncer_store_unavailable_total")
        let now = ContinuousClock.now
        let line: Int? = state.withLock { state in
            state.lastRefusal = now
            state.refusedSinceLog += 1
            if let last = state.lastLog, now - last < .seconds(1) { return nil }
            state.lastLog = now
            defer { state.refusedSinceLog = 0 }
            return state.refusedSinceLog
        }
        if let refused = line {
            logger.error("store unavailable: requests refused with 503", ["refused": .int(refused), "error": .string(error.description)])
        }
    }

    /// A group of writes committed: the store takes writes again.
    func committed() {
        state.withLock { $0.lastRefusal = nil }
    }

    /// Whether `/readyz` should say the store is unavailable.
    var isUnavailable: Bool {
        state.withLock { state in
            guard let last = state.lastRefusal else { return false }
            return ContinuousClock.now - last < Self.readinessHold
        }
    }
}
