import BouncerApplication
import BouncerDomain
import BouncerIdentity
import BouncerStore
import Foundation
import HTTPServer

/// The routes that change a message: edits, Send Anyway and deletes (`MessageService` decides them).
extension MessagesRoutes {
    func edit(_ request: Request, _ identity: Identity) async throws -> Response {
        do {
            let shadowBanned = try service.checkBan(identity)
            let input = try request.decodeJSON(EditInput.self)
            let message = try await service.edit(try request.messageID().value, to: input.text, identity, shadowBanned: shadowBanned)
            return try respond(message, to: request, identity)
        } catch {
            throw problem(error, request)
        }
    }

    func resend(_ request: Request, _ identity: Identity) async throws -> Response {
        do {
            let message = try await service.resend(try request.messageID().value, identity)
            return try respond(message, to: request, identity)
        } catch {
            throw problem(error, request)
        }
    }

    func delete(_ request: Request, _ identity: Identity) async throws -> Response {
        let hard = try QueryValues.bool(request, "hard") ?? false
        if hard { try Access.require(.admin, identity) }
        do {
            try await service.delete(try request.messageID().value, identity, hard: hard)
        } catch {
            throw problem(error, request)
        }
        return Response(status: .noContent)
    }
}
