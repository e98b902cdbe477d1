import BouncerStore

/// The rate rules' shared marks could not be read or written (PostgreSQL's `rate_marks`), so a
/// send could not be judged by its sender's recent messages. It fails as the store's own failures
/// do, 503 `store_unavailable` with `Retry-After`, whatever the database said: judging it as the
/// sender's first message would let a flood through while the marks are out of reach.
package struct RateMarksUnavailable: StoreFailure {
    package var underlying: any Error

    package var isUnavailable: Bool { true }
    package var description: String { "the rate rules' shared marks could not be read: \(underlying)" }
}
