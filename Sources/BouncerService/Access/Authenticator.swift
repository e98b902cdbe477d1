import BouncerApplication
import BouncerIdentity
import Foundation
import HTTPServer

/// Turns a request's `Authorization: Bearer` header into an identity, or a 401. Every bad token
/// gets the same response; why it was refused goes only to the debug log.
struct Authenticator: Sendable {
    let verifier: TokenVerifier
    let logger: Logger
    let verified = VerifiedTokens()

    static let challenge = #"Bearer realm="bouncer""#
    static let invalidTokenChallenge = #"Bearer realm="bouncer", error="invalid_token""#

    static let missingToken = HTTPError(.unauthorized, code: "unauthenticated",
                                        detail: "This needs a bearer token in the Authorization header.",
                                        headers: ["WWW-Authenticate": challenge])
    static let invalidToken = HTTPError(.unauthorized, code: "invalid_token",
                                        detail: "The token is malformed, forged, expired or not yet valid.",
                                        headers: ["WWW-Authenticate": invalidTokenChallenge])

    /// `queryToken`: without an Authorization header, the `access_token` query parameter is
    /// taken instead (RFC 6750 section 2.3), for browsers' EventSource, which cannot send headers;
    /// `queryName` names another parameter (Perspective's clients send `key`). The access log
    /// records paths without their query, so the token is never logged.
    func identity(for request: Request, queryToken: Bool = false, queryName: String = "access_token") throws(HTTPError) -> Identity {
        // A verified credential is remembered as the header's value was sent, so that one seen
        // before (nearly every request's) is found without reading its token out into a string
        // of its own. A query's token is remembered in the header's form, so that it is not
        // taken for a header's whole value.
        let credential: String
        if let value = request.headers["authorization"] {
            guard request.headers.count(of: "authorization") == 1 else {
                reject(request, because: "the Authorization header is not one `Bearer <token>`")
                throw Self.invalidToken
            }
            credential = value
        } else if queryToken, let value = request.query(queryName) {
            guard !value.isEmpty else {
                reject(request, because: "`\(queryName)` is empty")
                throw Self.invalidToken
            }
            credential = "Bearer " + value
        } else {
            throw Self.missingToken
        }
        let now = Date().timeIntervalSince1970
        if let identity = verified.identity(for: credential, now: now) { return identity }
        guard let token = Self.bearerToken(credential) else {
            reject(request, because: request.headers["authorization"] == nil ? "`\(queryName)` has a space"
                : "the Authorization header is not one `Bearer <token>`")
            throw Self.invalidToken
        }
        do {
            let checked = try verifier.verifyWithValidity(token, now: now)
            var identity = checked.identity
            identity.expires = checked.expires
            verified.remember(credential, identity, expires: checked.expires, notBefore: checked.notBefore)
            return identity
        } catch {
            reject(request, because: "\(error)")
            throw Self.invalidToken
        }
    }

    private func reject(_ request: Request, because reason: String) {
        logger.debug("token refused", ["request_id": .string(request.id), "reason": .string(reason)])
    }

    /// The token of a `Bearer` credential (RFC 6750 section 2.1; the scheme is case-insensitive).
    static func bearerToken(_ value: String) -> String? {
        var value = value
        // On the contiguous bytes: this runs for every request, over a token of a few hundred bytes.
        return value.withUTF8 { bytes -> String? in
            let scheme = "bearer".utf8
            guard bytes.count > scheme.count + 1,
                  bytes.prefix(scheme.count).elementsEqual(scheme, by: { $0 | 0x20 == $1 }),
                  bytes[scheme.count] == UInt8(ascii: " ") else { return nil }
            var start = scheme.count
            while start < bytes.count && bytes[start] == UInt8(ascii: " ") { start += 1 }
            let token = UnsafeBufferPointer(rebasing: bytes[start...])
            guard !token.isEmpty, !token.contains(UInt8(ascii: " ")) else { return nil }
            return String(decoding: token, as: UTF8.self)
        }
    }
}
