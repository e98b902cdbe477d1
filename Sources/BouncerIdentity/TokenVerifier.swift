import BouncerDomain
import Foundation
import JSON

/// Why a token was refused. Only the logs see this; every refusal gets the same response, so a
/// client learns nothing about which check failed.
public enum TokenRejection: Error, Sendable, Equatable {
    case tooLong
    case malformed
    case badHeader
    case unsupportedAlgorithm(String)
    case badSignature
    case badClaims(String)
    case expired
    case notYetValid
}

/// Verifies HS256 JSON Web Tokens (RFC 7519) signed with the service's secret.
public struct TokenVerifier: Sendable {
    /// Longest token judged at all.
    public static let maxTokenBytes = 8 * 1024
    /// Clock difference forgiven on `exp` and `nbf`.
    public static let leeway: Double = 60

    private let secret: [UInt8]

    public init(secret: [UInt8]) {
        self.secret = secret
    }

    /// The identity a token speaks for, checked in this order: size, shape, header, signature,
    /// then claims (so nothing of an unsigned payload is believed before the signature is).
    public func verify(_ token: String, now: Double = Date().timeIntervalSince1970) throws(TokenRejection) -> Identity {
        try verifyWithValidity(token, now: now).identity
    }

    /// As `verify`, with the window in which the token stays valid (leeway included), so a caller
    /// may remember it.
    public func verifyWithValidity(_ token: String, now: Double = Date().timeIntervalSince1970)
        throws(TokenRejection) -> (identity: Identity, expires: Double?, notBefore: Double?) {
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maxTokenBytes else { throw .tooLong }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else { throw .malformed }

        guard let headerBytes = Base64URL.decode(parts[0]),
              let header = try? StrictJSONParser.parse(headerBytes), case .object = header else { throw .badHeader }
        guard let algorithm = header["alg"]?.stringValue else { throw .badHeader }
        guard algorithm == "HS256" else { throw .unsupportedAlgorithm(algorithm) }
        if let type = header["typ"], type.stringValue?.uppercased() != "JWT" { throw .badHeader }
        // Critical extensions we do not implement must not be ignored (RFC 7515 section 4.1.11).
        if header["crit"] != nil { throw .badHeader }

        guard let signature = Base64URL.decode(parts[2]) else { throw .malformed }
        let signingInput = bytes[..<(parts[0].count + 1 + parts[1].count)]
        let expected = HMACSHA256.authenticate(signingInput, key: secret)
        guard HMACSHA256.constantTimeEqual(signature, expected) else { throw .badSignature }

        guard let payloadBytes = Base64URL.decode(parts[1]),
              let claims = try? StrictJSONParser.parse(payloadBytes), case .object = claims else {
            throw .badClaims("the payload is not a JSON object")
        }
        let identity = try Self.identity(from: claims, now: now)
        return (identity, claims["exp"]?.numberValue.map { $0 + Self.leeway }, claims["nbf"]?.numberValue.map { $0 - Self.leeway })
    }

    private static func identity(from claims: JSONValue, now: Double) throws(TokenRejection) -> Identity {
        let userID: String
        switch (claims["user_id"], claims["sub"]) {
        case (.string(let id)?, _), (nil, .string(let id)?):
            userID = id
        default:
            throw .badClaims("user_id (or sub) must be a string")
        }
        guard UserID.isValid(userID) else { throw .badClaims("user_id has characters that are not allowed") }
        guard !UserID.reserved.contains(userID) else { throw .badClaims("user_id \(userID) is reserved for the service itself") }

        var role = Role.user
        if let claim = claims["role"] {
            guard let name = claim.stringValue, let parsed = Role(rawValue: name) else { throw .badClaims("unknown role") }
            role = parsed
        }
        if let claim = claims["exp"] {
            guard let expiry = claim.numberValue else { throw .badClaims("exp must be a number") }
            if now > expiry + leeway { throw .expired }
        }
        if let claim = claims["nbf"] {
            guard let notBefore = claim.numberValue else { throw .badClaims("nbf must be a number") }
            if now < notBefore - leeway { throw .notYetValid }
        }
        return Identity(userID: userID, role: role)
    }
}

/// Makes tokens the verifier accepts: for `bouncer token` and for tests.
public struct TokenSigner: Sendable {
    private let secret: [UInt8]

    public init(secret: [UInt8]) {
        self.secret = secret
    }

    /// A token for `identity`, valid for `lifetime` seconds from `now` (no expiry when nil).
    public func token(for identity: Identity, now: Double = Date().timeIntervalSince1970, lifetime: Double? = 3600) -> String {
        var claims = "{\"user_id\":\(Self.quoted(identity.userID)),\"role\":\"\(identity.role.rawValue)\",\"iat\":\(Int(now))"
        if let lifetime { claims += ",\"exp\":\(Int(now + lifetime))" }
        claims += "}"
        return sign(header: #"{"alg":"HS256","typ":"JWT"}"#, claims: claims)
    }

    /// Signs any header and claims text as given (tests use it to make hostile tokens).
    public func sign(header: String, claims: String) -> String {
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return signingInput + "." + Base64URL.encode(HMACSHA256.authenticate(Array(signingInput.utf8), key: secret))
    }

    private static func quoted(_ text: String) -> String {
        // User ids are restricted to characters that need no escaping.
        "\"" + text + "\""
    }
}
