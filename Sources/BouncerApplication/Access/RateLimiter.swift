import BouncerApplication
import BouncerStore
import Dispatch
import Locking
import Synchronization

/// Token buckets per key (a user id): `rate` tokens a second, up to `burst`. Memory stays bounded
/// however many keys there are: a bucket that has refilled is the same as no bucket and is
/// dropped when room is needed, and past `capacity` the least recently used go first (their
/// users get a fresh burst: a small leniency, never a wrong refusal).
package final class RateLimiter: Sendable {
    package typealias Decision = RateDecision

    private struct Bucket {
        var tokens: Double
        var updated: UInt64
    }

    private let rateBits: Atomic<UInt64>
    private let fixedBurst: Double?
    package let capacity: Int

    /// Messages a second; 0 is no limit.
    package var rate: Double { Double(bitPattern: rateBits.load(ordering: .relaxed)) }
    /// The most messages at once: twice the rate unless given.
    package var burst: Double { fixedBurst ?? rate * 2 }

    /// Changes the rate from now on (buckets keep their tokens, capped at the new burst).
    package func setRate(_ rate: Double) {
        rateBits.store(max(0, rate).bitPattern, ordering: .relaxed)
    }
    private final class Shard: Sendable {
        let buckets = Locked<[String: Bucket]>([:])
    }

    private let shards: [Shard]
    private let shardCapacity: Int

    /// `rate` 0 turns limiting off.
    package init(rate: Double, burst: Double? = nil, capacity: Int = 100_000, shardCount: Int = 16) {
        self.rateBits = Atomic(max(0, rate).bitPattern)
        self.fixedBurst = burst
        self.capacity = capacity
        self.shardCapacity = max(1, capacity / shardCount)
        self.shards = (0..<shardCount).map { _ in Shard() }
    }

    package var trackedKeys: Int { shards.reduce(0) { $0 + $1.buckets.withLock { $0.count } } }

    package func take(_ key: String, now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Decision {
        let rate = self.rate
        let burst = self.burst
        guard rate > 0 else { return .allowed }
        var hasher = Hasher()
        hasher.combine(key)
        let shard = shards[Int(UInt(bitPattern: hasher.finalize()) % UInt(shards.count))]
        return shard.buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            // Sends of one user on two event loops can reach the lock in the other order than
            // they read the clock: a time before the bucket's own refills nothing (a wrapped
            // difference would have refilled it whole).
            if now > bucket.updated {
                bucket.tokens = min(burst, bucket.tokens + Double(now - bucket.updated) / 1e9 * rate)
                bucket.updated = now
            }
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return .limited(tokens: bucket.tokens, rate: rate)
            }
            bucket.tokens -= 1
            if buckets[key] == nil && buckets.count >= shardCapacity {
                makeRoom(in: &buckets, now: now, refillTime: burst / rate)
            }
            buckets[key] = bucket
            return .allowed
        }
    }

    private func makeRoom(in buckets: inout [String: Bucket], now: UInt64, refillTime: Double) {
        buckets = buckets.filter { now <= $0.value.updated || Double(now - $0.value.updated) / 1e9 < refillTime }
        guard buckets.count >= shardCapacity else { return }
        // Every bucket is in use: drop the least recently used eighth.
        let keep = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(shardCapacity - max(1, shardCapacity / 8))
        buckets = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }
}
