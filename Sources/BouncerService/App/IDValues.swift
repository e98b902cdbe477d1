import BouncerApplication
import BouncerDomain
import BouncerIdentity
import HTTPServer

/// The ids a request names, in its path or its body, checked one way: a 400 that names the field
/// for an id Bouncer's ids cannot be.
enum IDValues {
    /// The route's `{user_id}`.
    static func userID(_ request: Request) throws -> String {
        let id = try request.parameter("user_id")
        guard UserID.isValid(id) else { throw HTTPError.badRequest("invalid_field", "The user id must be 1-255 characters of A-Z a-z 0-9 _ . @ : | = + -.").keyed("field.user_id") }
        return id
    }

    /// A message id given in `field` (the client's own id for a send, a parent's, Stream's).
    static func messageID(_ id: String, field: String) throws(HTTPError) {
        guard IDSyntax.message.accepts(id) else {
            throw .badRequest("invalid_field", "`\(field)` must be 1-100 characters of A-Z a-z 0-9 _ -.").keyed("field.message_id", field)
        }
    }
}
