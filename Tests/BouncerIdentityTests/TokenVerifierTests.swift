import BouncerDomain
import Testing
@testable import BouncerIdentity

@Suite struct TokenVerifierTests {
    static let secret = Array("a-test-secret-that-is-32-bytes!!".utf8)
    static let signer = TokenSigner(secret: secret)
    static let verifier = TokenVerifier(secret: secret)
    static let now: Double = 1_800_000_000

    static func verify(_ token: String) throws(TokenRejection) -> Identity {
        try verifier.verify(token, now: now)
    }

    static func sign(_ claims: String, header: String = #"{"alg":"HS256","typ":"JWT"}"#) -> String {
        signer.sign(header: header, claims: claims)
    }

    @Test func mintedTokensRoundTrip() throws {
        for role in Role.allCases {
            let token = Self.signer.token(for: Identity(userID: "alice", role: role), now: Self.now, lifetime: 60)
            #expect(try Self.verify(token) == Identity(userID: "alice", role: role))
        }
    }

    @Test func claimsAreRead() throws {
        #expect(try Self.verify(Self.sign(#"{"user_id":"u1"}"#)) == Identity(userID: "u1", role: .user))
        #expect(try Self.verify(Self.sign(#"{"sub":"u2","role":"moderator"}"#)) == Identity(userID: "u2", role: .moderator))
        // user_id wins over sub when both are there.
        #expect(try Self.verify(Self.sign(#"{"user_id":"u3","sub":"other"}"#)).userID == "u3")
        #expect(try Self.verify(Self.sign(#"{"user_id":"u4"}"#, header: #"{"alg":"HS256"}"#)).userID == "u4")
    }

    /// `system` files the rules' flags: a token of a user by that name would file flags that look
    /// like theirs.
    @Test func theServicesOwnIDIsNoOnesToken() throws {
        #expect(throws: TokenRejection.self) { try Self.verify(Self.sign(#"{"user_id":"system"}"#)) }
        #expect(throws: TokenRejection.self) { try Self.verify(Self.sign(#"{"sub":"system","role":"admin"}"#)) }
        #expect(try Self.verify(Self.sign(#"{"user_id":"system-admin"}"#)).userID == "system-admin")
    }

    @Test func aTokenSignedWithAnotherSecretNeverPasses() {
        let others = ["", "a", "a-test-secret-that-is-32-bytes!?", "A-TEST-SECRET-THAT-IS-32-BYTES!!"]
        for other in others {
            let token = TokenSigner(secret: Array(other.utf8)).token(for: Identity(userID: "mallory", role: .admin), now: Self.now)
            #expect(throws: TokenRejection.badSignature) { try Self.verify(token) }
        }
    }

    @Test func tamperingBreaksTheSignature() {
        let token = Self.signer.token(for: Identity(userID: "alice", role: .user), now: Self.now)
        let parts = token.split(separator: ".").map(String.init)
        let forgedClaims = Base64URL.encode(Array(#"{"user_id":"alice","role":"admin"}"#.utf8))
        #expect(throws: TokenRejection.badSignature) { try Self.verify(parts[0] + "." + forgedClaims + "." + parts[2]) }
        var signature = Array(parts[2].utf8)
        signature[0] = signature[0] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: TokenRejection.self) { try Self.verify(parts[0] + "." + parts[1] + "." + String(decoding: signature, as: UTF8.self)) }
    }

    @Test func otherAlgorithmsAreRefused() {
        let claims = #"{"user_id":"mallory","role":"admin"}"#
        let encodedClaims = Base64URL.encode(Array(claims.utf8))
        // alg none with an empty signature, and with any signature.
        let none = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        #expect(throws: TokenRejection.self) { try Self.verify(none + "." + encodedClaims + ".") }
        #expect(throws: TokenRejection.unsupportedAlgorithm("none")) { try Self.verify(none + "." + encodedClaims + ".c2ln") }
        // HS512, and RS256 with an HMAC made from the secret (the key-confusion trick).
        #expect(throws: TokenRejection.unsupportedAlgorithm("HS512")) { try Self.verify(Self.sign(claims, header: #"{"alg":"HS512"}"#)) }
        #expect(throws: TokenRejection.unsupportedAlgorithm("RS256")) { try Self.verify(Self.sign(claims, header: #"{"alg":"RS256"}"#)) }
        #expect(throws: TokenRejection.unsupportedAlgorithm("hs256")) { try Self.verify(Self.sign(claims, header: #"{"alg":"hs256"}"#)) }
        #expect(throws: TokenRejection.badHeader) { try Self.verify(Self.sign(claims, header: #"{"typ":"JWT"}"#)) }
        #expect(throws: TokenRejection.badHeader) { try Self.verify(Self.sign(claims, header: #"{"alg":"HS256","crit":["exp"]}"#)) }
        #expect(throws: TokenRejection.badHeader) { try Self.verify(Self.sign(claims, header: #"{"alg":"HS256","alg":"none"}"#)) }
    }

    @Test(arguments: [
        #"{}"#,
        #"{"user_id":""}"#,
        #"{"user_id":42}"#,
        #"{"user_id":null,"sub":"x"}"#,
        #"{"user_id":"has space"}"#,
        #"{"user_id":"a\nb"}"#,
        #"{"user_id":"u","role":"superuser"}"#,
        #"{"user_id":"u","role":1}"#,
        #"{"user_id":"u","exp":"soon"}"#,
        #"{"user_id":"u","nbf":true}"#,
        #"{"user_id":"u","role":"user","role":"admin"}"#,
        #"["user_id","u"]"#,
    ])
    func badClaimsAreRefused(claims: String) {
        #expect(throws: TokenRejection.self) { try Self.verify(Self.sign(claims)) }
    }

    @Test func aTooLongUserIDIsRefused() {
        let id = String(repeating: "a", count: UserID.maxLength + 1)
        #expect(throws: TokenRejection.self) { try Self.verify(Self.sign(#"{"user_id":"\#(id)"}"#)) }
        let longest = String(repeating: "a", count: UserID.maxLength)
        #expect(throws: Never.self) { try Self.verify(Self.sign(#"{"user_id":"\#(longest)"}"#)) }
    }

    @Test func expiryAndNotBeforeHonourSixtySecondsOfLeeway() throws {
        let now = Int(Self.now)
        #expect(try Self.verify(Self.sign(#"{"user_id":"u","exp":\#(now + 10)}"#)).userID == "u")
        #expect(try Self.verify(Self.sign(#"{"user_id":"u","exp":\#(now - 59)}"#)).userID == "u")
        #expect(throws: TokenRejection.expired) { try Self.verify(Self.sign(#"{"user_id":"u","exp":\#(now - 61)}"#)) }
        #expect(try Self.verify(Self.sign(#"{"user_id":"u","nbf":\#(now + 59)}"#)).userID == "u")
        #expect(throws: TokenRejection.notYetValid) { try Self.verify(Self.sign(#"{"user_id":"u","nbf":\#(now + 61)}"#)) }
        #expect(try Self.verify(Self.sign(#"{"user_id":"u","exp":\#(now).5}"#)).userID == "u")
    }

    @Test func malformedTokensAreRefused() {
        let token = Self.signer.token(for: Identity(userID: "u", role: .user), now: Self.now)
        for bad in ["", "abc", "a.b", token + ".extra", "." + token, token.replacingOccurrences(of: ".", with: ".."),
                    token + "=", " " + token] {
            #expect(throws: TokenRejection.self) { try Self.verify(bad) }
        }
    }

    @Test func tokensOverEightKiBAreRefusedUnread() {
        let padding = String(repeating: "x", count: TokenVerifier.maxTokenBytes)
        let token = Self.sign(#"{"user_id":"u","pad":"\#(padding)"}"#)
        #expect(throws: TokenRejection.tooLong) { try Self.verify(token) }
        let small = Self.sign(#"{"user_id":"u","pad":"\#(String(repeating: "x", count: 5000))"}"#)
        #expect(small.utf8.count <= TokenVerifier.maxTokenBytes)
        #expect(throws: Never.self) { try Self.verify(small) }
    }
}
