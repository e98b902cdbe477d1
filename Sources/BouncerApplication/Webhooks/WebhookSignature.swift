import BouncerIdentity
import Foundation

/// Signing as the Standard Webhooks specification has it: the secret is `whsec_` and the base64 of
/// the key; `webhook-signature` is `v1,` and the base64 of HMAC-SHA256 over
/// `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the key's bytes.
package enum WebhookSignature {
    package static let secretPrefix = "whsec_"

    /// A new secret: 24 random bytes, as the specification suggests (between 24 and 64).
    package static func newSecret() -> String {
        secretPrefix + Data(HMACSHA256.randomBytes(24)).base64EncodedString()
    }

    /// The key a secret stands for; nil for one not of that form.
    package static func key(of secret: String) -> [UInt8]? {
        guard secret.hasPrefix(secretPrefix), let key = Data(base64Encoded: String(secret.dropFirst(secretPrefix.count))) else {
            return nil
        }
        return Array(key)
    }

    /// The `webhook-signature` value of one delivery attempt.
    package static func sign(id: String, timestamp: Int, body: [UInt8], secret: String) -> String? {
        guard let key = key(of: secret) else { return nil }
        let signed = Array("\(id).\(timestamp).".utf8) + body
        return "v1," + Data(HMACSHA256.authenticate(signed, key: key)).base64EncodedString()
    }
}
