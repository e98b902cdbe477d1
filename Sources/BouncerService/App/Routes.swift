import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerStore
import Dispatch
import HTTPServer

/// The router, built route by route with each route's access and limits.
struct Routes {
    struct Entry: Sendable, Equatable {
        var method: String
        var path: String
        var access: Access
    }

    private(set) var router = Router()
    private(set) var table: [Entry] = []
    let authenticator: Authenticator
    let sendLimiter: RateLimiter
    /// The buckets all instances count in, when several share the store: asked after this
    /// instance's own (see `SharedSendRates`).
    let sharedSendRates: (any SharedSendRates)?

    init(authenticator: Authenticator, sendLimiter: RateLimiter, sharedSendRates: (any SharedSendRates)? = nil) {
        self.authenticator = authenticator
        self.sendLimiter = sendLimiter
        self.sharedSendRates = sharedSendRates
    }

    /// A route anyone may call.
    mutating func open(_ method: String, _ path: String, _ handler: Handler) {
        router.add(method, path, handler)
        table.append(Entry(method: method, path: path, access: .anyone))
    }

    /// A chat server's route: its handler checks the server's own secret.
    mutating func integration(_ method: String, _ path: String, _ handler: Handler) {
        router.add(method, path, handler)
        table.append(Entry(method: method, path: path, access: .integration))
    }

    /// Spends one of `userID`'s send tokens, here and (when instances share the store) in the
    /// shared buckets: `nil` when allowed, else the seconds until one is back. For senders that
    /// come with no token of Bouncer's (the integrations).
    static func takeSendToken(_ userID: String, _ limiter: RateLimiter, _ shared: (any SharedSendRates)?) async -> Int? {
        if case .limited(let retryAfter) = limiter.take(userID) { return retryAfter }
        if let shared, limiter.rate > 0, case .limited(let retryAfter) = await shared.take(userID, rate: limiter.rate, burst: limiter.burst) {
            return retryAfter
        }
        return nil
    }

    /// Checks the caller's token, role and (with `limitedAsSend`) send rate: the one place
    /// access is enforced, for every kind of route.
    private static func admit(_ request: Request, _ minimum: Role, _ authenticator: Authenticator,
                              _ limiter: RateLimiter?, queryToken: Bool = false) throws(HTTPError) -> Identity {
        let identity = try authenticator.identity(for: request, queryToken: queryToken)
        try Access.require(minimum, identity)
        if let limiter, case .limited(let retryAfter) = limiter.take(identity.userID) {
            throw rateLimited(retryAfter)
        }
        return identity
    }

    private static func rateLimited(_ retryAfter: Int) -> HTTPError {
        HTTPError(.tooManyRequests, code: "rate_limited", detail: "Too many messages; try again in \(retryAfter) seconds.",
                  headers: ["Retry-After": String(retryAfter)], detailArguments: [String(retryAfter)])
    }

    /// As `add`, for a handler that answers through a `Responder` instead of as a task (the send
    /// path). The checks and the handler's first part run on the connection's queue.
    mutating func addCallback(_ method: String, _ path: String, _ minimum: Role, limitedAsSend: Bool = false,
                              _ handler: @escaping @Sendable (Request, Identity, Responder) throws -> Void) {
        let authenticator = self.authenticator
        let limiter = limitedAsSend ? sendLimiter : nil
        let shared = limitedAsSend ? sharedSendRates : nil
        router.add(method, path, .callback { request, responder in
            let identity = try Self.admit(request, minimum, authenticator, limiter)
            guard let shared, let limiter, limiter.rate > 0 else { return try handler(request, identity, responder) }
            shared.take(identity.userID, rate: limiter.rate, burst: limiter.burst) { decision in
                guard decision == .allowed else {
                    if case .limited(let retryAfter) = decision { responder.fail(Self.rateLimited(retryAfter)) }
                    return
                }
                // The answer comes on the store's queue: the handler's work goes elsewhere.
                DispatchQueue.global().async {
                    do { try handler(request, identity, responder) } catch { responder.fail(error) }
                }
            }
        })
        table.append(Entry(method: method, path: path, access: .role(minimum)))
    }

    /// A route of another service's API that Bouncer also serves (Perspective's, OpenAI's), for
    /// callers with a valid token of at least `minimum`, as a header or in the query parameter
    /// `tokenQuery`: every refusal, the token's and the role's included, is answered in that API's
    /// own error shape by `refuse`, so that its clients read it as they read that service's.
    mutating func foreign(_ method: String, _ path: String, _ minimum: Role, tokenQuery: String, maxBodyBytes: Int? = nil,
                          refuse: @escaping @Sendable (HTTPError, Request) -> Response,
                          _ handler: @escaping @Sendable (Request, Identity) async throws(HTTPError) -> Response) {
        let authenticator = self.authenticator
        router.add(method, path, .async { request in
            do throws(HTTPError) {
                let identity = try authenticator.identity(for: request, queryToken: true, queryName: tokenQuery)
                try Access.require(minimum, identity)
                return try await handler(request, identity)
            } catch {
                return refuse(error, request)
            }
        }, maxBodyBytes: maxBodyBytes)
        table.append(Entry(method: method, path: path, access: .role(minimum)))
    }

    /// A route for callers with a valid token of at least `minimum`. With `limitedAsSend`, each
    /// call spends one of the caller's send tokens (429 with Retry-After when none are left).
    /// With `queryToken`, the token may come as `?access_token=` instead of a header.
    mutating func add(_ method: String, _ path: String, _ minimum: Role, limitedAsSend: Bool = false, maxBodyBytes: Int? = nil,
                      queryToken: Bool = false, _ handler: @escaping @Sendable (Request, Identity) async throws -> Response) {
        let authenticator = self.authenticator
        let limiter = limitedAsSend ? sendLimiter : nil
        let shared = limitedAsSend ? sharedSendRates : nil
        router.add(method, path, .async { request in
            let identity = try Self.admit(request, minimum, authenticator, limiter, queryToken: queryToken)
            if let shared, let limiter, limiter.rate > 0,
               case .limited(let retryAfter) = await shared.take(identity.userID, rate: limiter.rate, burst: limiter.burst) {
                throw Self.rateLimited(retryAfter)
            }
            return try await handler(request, identity)
        }, maxBodyBytes: maxBodyBytes)
        table.append(Entry(method: method, path: path, access: .role(minimum)))
    }
}
