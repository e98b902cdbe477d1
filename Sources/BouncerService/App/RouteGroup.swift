import BouncerApplication
import BouncerDomain
import BouncerIdentity
import HTTPServer

/// A feature's routes under one path prefix, each declared in one line with its method, the rest
/// of its path, the role it needs and its limits: `group.get("/{id}", .moderator) { ... }`.
struct RouteGroup {
    let prefix: String
    fileprivate(set) var routes: Routes

    /// What answers a request from a caller with a token.
    typealias Answer = @Sendable (Request, Identity) async throws -> Response

    mutating func get(_ path: String, _ minimum: Role, queryToken: Bool = false, _ handler: @escaping Answer) {
        routes.add("GET", prefix + path, minimum, queryToken: queryToken, handler)
    }

    /// With `limitedAsSend`, each call spends one of the caller's send tokens.
    mutating func post(_ path: String, _ minimum: Role, limitedAsSend: Bool = false, maxBodyBytes: Int? = nil,
                       _ handler: @escaping Answer) {
        routes.add("POST", prefix + path, minimum, limitedAsSend: limitedAsSend, maxBodyBytes: maxBodyBytes, handler)
    }

    mutating func patch(_ path: String, _ minimum: Role, limitedAsSend: Bool = false, _ handler: @escaping Answer) {
        routes.add("PATCH", prefix + path, minimum, limitedAsSend: limitedAsSend, handler)
    }

    mutating func put(_ path: String, _ minimum: Role, _ handler: @escaping Answer) {
        routes.add("PUT", prefix + path, minimum, handler)
    }

    mutating func delete(_ path: String, _ minimum: Role, _ handler: @escaping Answer) {
        routes.add("DELETE", prefix + path, minimum, handler)
    }

    /// A POST answered through a `Responder` on the connection's queue (the send path).
    mutating func postAnsweringLater(_ path: String, _ minimum: Role, limitedAsSend: Bool,
                                     _ handler: @escaping @Sendable (Request, Identity, Responder) throws -> Void) {
        routes.addCallback("POST", prefix + path, minimum, limitedAsSend: limitedAsSend, handler)
    }

    /// A route anyone may call, answered by `handler` as the router takes it.
    mutating func open(_ method: String, _ path: String, _ handler: Handler) {
        routes.open(method, prefix + path, handler)
    }

    /// A chat server's route: its handler checks the server's own secret.
    mutating func integration(_ method: String, _ path: String, _ handler: Handler) {
        routes.integration(method, prefix + path, handler)
    }
}

extension Routes {
    /// Registers the routes `register` declares under `prefix`.
    mutating func group(_ prefix: String, _ register: (inout RouteGroup) -> Void) {
        var group = RouteGroup(prefix: prefix, routes: self)
        register(&group)
        self = group.routes
    }
}
