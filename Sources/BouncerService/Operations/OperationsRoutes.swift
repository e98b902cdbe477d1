import BouncerApplication
import BouncerStore
import HTTPServer

/// `/healthz`, `/readyz` and `/metrics`: what orchestrators and Prometheus read, with no token.
struct OperationsRoutes: Sendable {
    let health: any StoreHealthRepository
    let flags: any FlagRepository
    let metrics: Metrics
    var availability: StoreAvailability?

    private static let okBody = Array(#"{"status":"ok"}"#.utf8)
    private static let openAPIBody = OpenAPIDocument.bytes
    private static let readyBody = Array(#"{"status":"ready"}"#.utf8)

    func register(in routes: inout Routes) {
        routes.group("") { group in
            // Liveness: the process answers. Deliberately touches nothing else.
            group.open("GET", "/healthz", .immediate { _ in .json(.ok, Self.okBody) })
            group.open("GET", "/readyz", .async { [health, availability] _ in
                do {
                    try await health.checkReady()
                } catch {
                    throw HTTPError(.serviceUnavailable, code: "not_ready", detail: "The store is not open or not migrated.")
                }
                if availability?.isUnavailable == true {
                    throw HTTPError(.serviceUnavailable, code: "store_unavailable",
                                    detail: "The store refused writes moments ago (its disk may be full or failing) and none has committed since.",
                                    headers: ["Retry-After": String(StoreAvailability.retryAfterSeconds)]).keyed("store.refused_writes")
                }
                return .json(.ok, Self.readyBody)
            })
            group.open("GET", "/openapi.json", .immediate { _ in .json(.ok, Self.openAPIBody) })
            group.open("GET", "/metrics", .async { [flags, metrics] _ in
                let openFlags = Double(try await flags.openFlagCount())
                let text = metrics.render(extra: [("bouncer_open_flags", "Flags not yet resolved or withdrawn.", openFlags)])
                return Response(status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"], body: Array(text.utf8))
            })
    

        }

    }
}
