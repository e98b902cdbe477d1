import BouncerStore
import HTTPServer

/// `/healthz` and `/readyz`: what orchestrators probe, with no token.
struct OperationsRoutes: Sendable {
    let health: any StoreHealthRepository

    private static let okBody = Array(#"{"status":"ok"}"#.utf8)
    private static let readyBody = Array(#"{"status":"ready"}"#.utf8)

    func register(in routes: inout Routes) {
        // Liveness: the process answers. Deliberately touches nothing else.
        routes.open("GET", "/healthz", .immediate { _ in .json(.ok, Self.okBody) })
        routes.open("GET", "/readyz", .async { [health] _ in
            do {
                try await health.checkReady()
            } catch {
                throw HTTPError(.serviceUnavailable, code: "not_ready", detail: "The store is not open or not migrated.")
            }
            return .json(.ok, Self.readyBody)
        })
    }
}
