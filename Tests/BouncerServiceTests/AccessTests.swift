import BouncerDomain
import BouncerIdentity
import BouncerSQLite
import BouncerStore
import Foundation
import HTTPServer
import Testing
import TestSupport
@testable import BouncerApplication
@testable import BouncerService

@Suite struct AccessTests {
    static let secret = Array("access-tests-secret-access-tests-secret".utf8)
    static let signer = TokenSigner(secret: secret)
    static let logger = Logger(level: .error)

    static func routes(sendRate: Double = 10) -> Routes {
        var routes = Routes(authenticator: Authenticator(verifier: TokenVerifier(secret: secret), logger: logger),
                            sendLimiter: RateLimiter(rate: sendRate, burst: 2))
        routes.open("GET", "/open", .immediate { _ in Response(status: .ok) })
        for role in Role.allCases {
            routes.add("GET", "/\(role.rawValue)", role) { _, identity in
                Response(status: .ok, body: Array(identity.userID.utf8))
            }
        }
        routes.add("POST", "/send", .user, limitedAsSend: true) { _, _ in Response(status: .created) }
        return routes
    }

    /// Runs a request through the router as the connection would, errors rendered as responses.
    static func call(_ routes: Routes, _ method: String, _ path: String, authorization: [String] = []) async -> Response {
        var headers: HTTPHeaders = ["host": "x", "x-request-id": "test"]
        for value in authorization { headers.add("authorization", value) }
        let head = RequestHead(method: method, target: path, version: .http1_1, headers: headers, framing: .none,
                               keepAlive: true, expectsContinue: false)
        return await HTTPServer(configuration: HTTPServer.Configuration(), router: routes.router).respond(to: head)
    }

    static func bearer(_ role: Role, user: String = "someone") -> [String] {
        ["Bearer " + signer.token(for: Identity(userID: user, role: role))]
    }

    @Test func eachRoleReachesWhatItMayAndNoMore() async {
        let routes = Self.routes()
        for caller in Role.allCases {
            for needed in Role.allCases {
                let response = await Self.call(routes, "GET", "/\(needed.rawValue)", authorization: Self.bearer(caller))
                #expect(response.status.code == (caller >= needed ? 200 : 403), "\(caller) calling a \(needed) route")
            }
        }
        let forbidden = await Self.call(routes, "GET", "/admin", authorization: Self.bearer(.moderator))
        #expect(String(decoding: forbidden.body, as: UTF8.self).contains(#""code":"forbidden""#))
        #expect(await Self.call(routes, "GET", "/open").status.code == 200)
        #expect(await Self.call(routes, "GET", "/user", authorization: Self.bearer(.user, user: "carol")).body == Array("carol".utf8))
    }

    @Test func noTokenIs401WithABearerChallenge() async {
        let response = await Self.call(Self.routes(), "GET", "/user")
        #expect(response.status.code == 401)
        #expect(response.headers["WWW-Authenticate"] == #"Bearer realm="bouncer""#)
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""code":"unauthenticated""#))
    }

    /// Whatever is wrong with a token, the response is the same, so it tells an attacker nothing.
    @Test func everyBadTokenGetsTheSameAnswer() async {
        let now = Date().timeIntervalSince1970
        let other = TokenSigner(secret: Array("another-secret-another-secret-another".utf8))
        let badCredentials: [[String]] = [
            ["Bearer " + other.token(for: Identity(userID: "u", role: .admin))],
            ["Bearer " + Self.signer.token(for: Identity(userID: "u", role: .user), now: now - 7200, lifetime: 60)],
            ["Bearer " + Self.signer.sign(header: #"{"alg":"none"}"#, claims: #"{"user_id":"u"}"#)],
            ["Bearer " + Self.signer.sign(header: #"{"alg":"HS256"}"#, claims: #"{"user_id":"u","nbf":\#(Int(now) + 3600)}"#)],
            ["Bearer " + Self.signer.sign(header: #"{"alg":"HS256"}"#, claims: #"{"role":"admin"}"#)],
            ["Bearer not-a-token"],
            ["Basic dXNlcjpwYXNz"],
            ["Bearer"],
            Self.bearer(.user) + Self.bearer(.admin),
            ["Bearer " + String(repeating: "a", count: 9000)],
        ]
        var bodies = Set<String>()
        for credential in badCredentials {
            let response = await Self.call(Self.routes(), "GET", "/user", authorization: credential)
            #expect(response.status.code == 401)
            #expect(response.headers["WWW-Authenticate"] == #"Bearer realm="bouncer", error="invalid_token""#)
            bodies.insert(String(decoding: response.body, as: UTF8.self))
        }
        #expect(bodies.count == 1, "bodies differ: \(bodies)")
        #expect(bodies.first?.contains(#""code":"invalid_token""#) == true)
    }

    /// Verified credentials are remembered as sent; a query's token is remembered in the
    /// header's form, so a query that spells a whole header's value is still no token.
    @Test func aQueryTokenIsATokenAndNeverAWholeHeader() async {
        var routes = Self.routes()
        routes.add("GET", "/stream", .user, queryToken: true) { _, identity in Response(status: .ok, body: Array(identity.userID.utf8)) }
        let token = Self.signer.token(for: Identity(userID: "dana", role: .user))
        #expect(await Self.call(routes, "GET", "/stream", authorization: ["Bearer " + token]).status.code == 200)
        let spelledHeader = await Self.call(routes, "GET", "/stream?access_token=Bearer%20" + token)
        #expect(spelledHeader.status.code == 401)
        let query = await Self.call(routes, "GET", "/stream?access_token=" + token)
        #expect(query.status.code == 200)
        #expect(query.body == Array("dana".utf8))
        // Remembered either way, the same credential is accepted again both ways.
        #expect(await Self.call(routes, "GET", "/stream?access_token=" + token).status.code == 200)
        #expect(await Self.call(routes, "GET", "/stream", authorization: ["bearer  " + token]).status.code == 200)
    }

    @Test func theBearerSchemeIsReadAsRFC6750Says() {
        #expect(Authenticator.bearerToken("Bearer abc.def") == "abc.def")
        #expect(Authenticator.bearerToken("bEaReR   abc") == "abc")
        #expect(Authenticator.bearerToken("Bearer a b") == nil)
        #expect(Authenticator.bearerToken("Bearer ") == nil)
        #expect(Authenticator.bearerToken("Bearer  ") == nil)
        #expect(Authenticator.bearerToken("Bearerabc") == nil)
        #expect(Authenticator.bearerToken("Basic abc") == nil)
        #expect(Authenticator.bearerToken("Bearer é") == "é")
    }

    @Test func sendsPastTheRateAre429WithRetryAfter() async {
        let routes = Self.routes(sendRate: 1)
        let alice = Self.bearer(.user, user: "alice")
        #expect(await Self.call(routes, "POST", "/send", authorization: alice).status.code == 201)
        #expect(await Self.call(routes, "POST", "/send", authorization: alice).status.code == 201)
        let limited = await Self.call(routes, "POST", "/send", authorization: alice)
        #expect(limited.status.code == 429)
        #expect(limited.headers["Retry-After"] == "1")
        #expect(String(decoding: limited.body, as: UTF8.self).contains(#""code":"rate_limited""#))
        #expect(await Self.call(routes, "POST", "/send", authorization: Self.bearer(.user, user: "bob")).status.code == 201)
        // Reading is not sending.
        #expect(await Self.call(routes, "GET", "/user", authorization: alice).status.code == 200)
    }
}
