/// Whether a user may send now, by a token bucket: `rate` tokens a second up to `burst`.
public enum RateDecision: Sendable, Equatable {
    case allowed
    /// Whole seconds until a token is back (at least 1).
    case limited(retryAfter: Int)

    /// The wait for one token, from a bucket holding `tokens` (fewer than one).
    public static func limited(tokens: Double, rate: Double) -> RateDecision {
        .limited(retryAfter: max(1, Int(((1 - tokens) / rate).rounded(.up))))
    }
}

/// Send-rate buckets kept in a store that several instances share, so a user who spreads sends
/// over them still gets the rate once in total. (An instance's own buckets, in memory, refuse
/// first: a bucket that counts only this instance's sends never holds fewer tokens than the
/// shared one, so what it refuses the shared one would too.)
public protocol SharedSendRates: Sendable {
    /// Takes one token from `user`'s bucket; `completion` runs on a queue of the store's.
    func take(_ user: String, rate: Double, burst: Double, completion: @escaping @Sendable (RateDecision) -> Void)
}

extension SharedSendRates {
    public func take(_ user: String, rate: Double, burst: Double) async -> RateDecision {
        await withCheckedContinuation { continuation in
            take(user, rate: rate, burst: burst) { continuation.resume(returning: $0) }
        }
    }
}
