import BouncerApplication
import BouncerIdentity
import Locking

/// Tokens already verified, so a client that sends the same token with every request pays for
/// the signature and the JSON once. Keyed by the whole credential as sent (`Bearer ` and the
/// token, signature included), so only the exact bytes that passed are trusted; expiry is
/// checked on every use. Bounded: when full, it starts over.
final class VerifiedTokens: Sendable {
    private struct Entry {
        var identity: Identity
        /// Seconds since 1970 after which the token is no longer accepted (leeway included).
        var expires: Double?
        /// Seconds since 1970 before which the token is not yet accepted (leeway included).
        var notBefore: Double?
    }

    private let entries = Locked<[String: Entry]>([:])
    let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    func identity(for token: String, now: Double) -> Identity? {
        entries.withLock { entries in
            guard let entry = entries[token] else { return nil }
            if let expires = entry.expires, now > expires { return nil }
            if let notBefore = entry.notBefore, now < notBefore { return nil }
            return entry.identity
        }
    }

    func remember(_ token: String, _ identity: Identity, expires: Double?, notBefore: Double?) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[token] = Entry(identity: identity, expires: expires, notBefore: notBefore)
        }
    }
}
