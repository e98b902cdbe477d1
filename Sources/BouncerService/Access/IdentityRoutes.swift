import BouncerApplication
import BouncerIdentity
import HTTPServer
import JSON

/// `GET /v1/me`: who the caller's token says they are, so a client can check its token.
struct IdentityRoutes: Sendable {
    func register(in routes: inout Routes) {
        routes.group("/v1/me") { group in
            group.get("", .user) { _, identity in
                var json: [UInt8] = Array(#"{"user_id":"#.utf8)
                JSONText.appendString(identity.userID, to: &json)
                json.append(contentsOf: #","role":"#.utf8)
                JSONText.appendString(identity.role.rawValue, to: &json)
                json.append(UInt8(ascii: "}"))
                return .json(.ok, json)
            }
    
        }
    }
}
