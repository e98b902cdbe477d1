import BouncerIdentity
import Testing
@testable import BouncerApplication
@testable import BouncerService

@Suite struct VerifiedTokensTests {
    @Test func aRememberedTokenStillExpiresAndIsNotValidEarly() {
        let cache = VerifiedTokens(capacity: 2)
        let alice = Identity(userID: "alice", role: .user)
        cache.remember("token-a", alice, expires: 1000, notBefore: 100)
        #expect(cache.identity(for: "token-a", now: 500) == alice)
        #expect(cache.identity(for: "token-a", now: 1001) == nil, "expired")
        #expect(cache.identity(for: "token-a", now: 99) == nil, "not yet valid")
        #expect(cache.identity(for: "token-b", now: 500) == nil, "only the exact token")
    }

    @Test func itStaysBounded() {
        let cache = VerifiedTokens(capacity: 2)
        for index in 0..<10 {
            cache.remember("t\(index)", Identity(userID: "u\(index)", role: .user), expires: nil, notBefore: nil)
        }
        #expect(cache.identity(for: "t9", now: 0)?.userID == "u9")
        #expect(cache.identity(for: "t0", now: 0) == nil)
    }
}
