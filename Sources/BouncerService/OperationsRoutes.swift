import BouncerStore
import HTTPServer

/// `/healthz` and `/readyz`: what orchestrators probe, with no token.
struct OperationsRoutes: Sendable {
    let health: any StoreHealthRepository

    private static let okBody = Array(#"{"status":"ok"}"#.utf8)
    private static let readyBody = Array(#"{"status":"ready"}"#.utf8)

    func register(in router: inout Router) {
        // Liveness: the process answers. Deliberately touches nothing else.
        router.get("/healthz", .immediate { _ in .json(.ok, Self.okBody) })
        router.get("/readyz", .async { [health] _ in
            do {
                try await health.checkReady()
            } catch {
                throw HTTPError(.serviceUnavailable, code: "not_ready", detail: "The store is not open or not migrated.")
            }
            return .json(.ok, Self.readyBody)
        })
    }
}
