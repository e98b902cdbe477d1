import BouncerApplication
import BouncerDomain
import HTTPServer

/// A route's `{channel_id}`, checked by `IDSyntax.channel` before a handler reads it.
struct ChannelID: Sendable, Hashable {
    let value: String
}

/// A route's message `{id}`: a message id as Bouncer writes them (`IDSyntax.message`: a client's
/// own, Stream's, Bouncer's) or a Matrix event id, the ids messages are stored under. Anything
/// else names no message.
struct MessageID: Sendable, Hashable {
    let value: String

    init?(_ text: String) {
        guard IDSyntax.message.accepts(text) || MatrixID.isEventID(text) else { return nil }
        value = text
    }
}

extension Request {
    /// The route's `{channel_id}`; 400 naming the field when it cannot be a channel's id.
    func channelID() throws -> ChannelID {
        let id = try parameter("channel_id")
        guard ChannelPattern.isChannelID(id) else {
            throw HTTPError.badRequest("invalid_field", "The channel id \(ChannelPattern.invalidIDDetail)").keyed("channels.invalid_id")
        }
        return ChannelID(value: id)
    }

    /// The route's message `{id}`; `notFound` (404 `message_not_found` unless the route names
    /// another) when it cannot be a message's id, as for one that names no message.
    func messageID(notFound: HTTPError = MessageText.notFound) throws -> MessageID {
        guard let id = MessageID(try parameter("id")) else { throw notFound }
        return id
    }
}
