import BouncerApplication
import BouncerDomain
import BouncerIdentity
import HTTPServer

/// Who may call a route. Every route declares it here, and `require` is the one check of a role:
/// the routes' own, and the one option that needs more than its route (`?hard=true` on a delete
/// needs an admin).
public enum Access: Sendable, Equatable, CustomStringConvertible {
    /// No token (health, readiness, metrics).
    case anyone
    /// A valid token of at least this role.
    case role(Role)
    /// A chat server's shared secret, checked by its integration (Matrix's bearer secret,
    /// Stream's body signature): no Bouncer token.
    case integration

    public var description: String {
        switch self {
        case .anyone: "anyone"
        case .role(let role): role.rawValue
        case .integration: "integration"
        }
    }

    /// 403 `forbidden` unless `identity` has at least the `minimum` role.
    static func require(_ minimum: Role, _ identity: Identity) throws(HTTPError) {
        guard identity.role >= minimum else {
            throw HTTPError(.forbidden, code: "forbidden", detail: "This needs the \(minimum.rawValue) role.",
                            detailArguments: [minimum.rawValue])
        }
    }
}
