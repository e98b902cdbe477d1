import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation
import HTTPServer

/// The send route: the body read and checked on the connection's queue, the message given to
/// `MessageService`, and the answer made once its write is committed, on the connection's loop.
extension MessagesRoutes {
    func send(_ request: Request, _ identity: Identity, _ responder: Responder) throws {
        let ban = service.bans.active(identity.userID)
        if let ban, !ban.shadow { throw MessageError.userBannedProblem }
        let channelID = try request.channelID().value
        let input = try SendInput(request)
        if let id = input.id { try IDValues.messageID(id, field: "id") }
        if let parent = input.parentID { try IDValues.messageID(parent, field: "parent_id") }
        let submission = Submission(text: input.text, channelID: channelID, id: input.id, parentID: input.parentID, custom: input.custom)
        do {
            // The store's writer calls back once the write is committed, and should only hand
            // the outcome over: the response is built on the connection's loop.
            try service.submit(submission, identity, ban: ban) { result in
                responder.respond { try self.answer(result, to: request, identity) }
            }
        } catch {
            throw error.problem()
        }
    }

    /// The response to a send, once its write is known.
    private func answer(_ result: Result<Submitted, any Error>, to request: Request, _ identity: Identity) throws -> Response {
        switch try result.get().outcome {
        case .created(let stored): return try respond(stored, to: request, identity, status: .created)
        case .replayed(let stored): return try respond(stored, to: request, identity)
        case .conflict: throw MessageError.idTaken.problem()
        case .parentNotFound: throw MessageError.parentNotFound.problem()
        }
    }
}
