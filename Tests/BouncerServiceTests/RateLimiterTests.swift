import Testing
@testable import BouncerApplication
@testable import BouncerService

@Suite struct RateLimiterTests {
    static let second: UInt64 = 1_000_000_000

    @Test func aBurstOfTwiceTheRateThenOneAtTheRate() {
        let limiter = RateLimiter(rate: 10)
        let start: UInt64 = 5 * Self.second
        for _ in 0..<20 { #expect(limiter.take("alice", now: start) == .allowed) }
        #expect(limiter.take("alice", now: start) == .limited(retryAfter: 1))
        // A tenth of a second buys one message back, and only one.
        #expect(limiter.take("alice", now: start + Self.second / 10) == .allowed)
        #expect(limiter.take("alice", now: start + Self.second / 10) == .limited(retryAfter: 1))
        // Other users have their own buckets.
        #expect(limiter.take("bob", now: start) == .allowed)
        // After two seconds the bucket is full again, not fuller.
        let later = start + 3 * Self.second
        for _ in 0..<20 { #expect(limiter.take("alice", now: later) == .allowed) }
        #expect(limiter.take("alice", now: later) != .allowed)
    }

    /// Two event loops can take from one user's bucket with their clock readings crossed: the
    /// earlier reading, arriving second, must not count as a long wait that refills the bucket.
    @Test func aClockReadingOlderThanTheBucketRefillsNothing() {
        let limiter = RateLimiter(rate: 10)
        let second: UInt64 = 1_000_000_000
        for _ in 0..<20 { #expect(limiter.take("u", now: 5 * second) == .allowed) }
        #expect(limiter.take("u", now: 5 * second - 1000) == .limited(retryAfter: 1))
        #expect(limiter.take("u", now: 5 * second - 2000) == .limited(retryAfter: 1))
        #expect(limiter.take("u", now: 5 * second + second / 10) == .allowed)
        #expect(limiter.take("u", now: 5 * second + second / 10) == .limited(retryAfter: 1))
    }

    @Test func retryAfterCoversTheWait() {
        let limiter = RateLimiter(rate: 0.25, burst: 1)
        #expect(limiter.take("slow", now: 0) == .allowed)
        #expect(limiter.take("slow", now: 0) == .limited(retryAfter: 4))
        #expect(limiter.take("slow", now: 3 * Self.second) == .limited(retryAfter: 1))
        #expect(limiter.take("slow", now: 4 * Self.second) == .allowed)
    }

    @Test func zeroTurnsLimitingOff() {
        let limiter = RateLimiter(rate: 0)
        for _ in 0..<1000 { #expect(limiter.take("anyone", now: 0) == .allowed) }
        #expect(limiter.trackedKeys == 0)
    }

    @Test func memoryStaysBoundedHoweverManyUsers() {
        let limiter = RateLimiter(rate: 10, capacity: 1600)
        for index in 0..<50_000 {
            _ = limiter.take("user-\(index)", now: UInt64(index) * 1000)
        }
        #expect(limiter.trackedKeys <= 1600)
        // A user active a moment ago is still limited: recent buckets are the ones kept.
        let now: UInt64 = 50_000 * 1000
        for _ in 0..<20 { _ = limiter.take("heavy", now: now) }
        #expect(limiter.take("heavy", now: now) != .allowed)
    }
}
