import BouncerIdentity
import Testing
@testable import BouncerApplication
@testable import BouncerService

/// Who may call each route, as the service is built.
@Suite struct RouteRolesTests {
    /// The contract's role table, for the routes that exist.
    @Test func theServiceDeclaresTheContractsRoles() async throws {
        let service = try await ServiceHarness()
        let routeTable = service.application.routeTable
        await service.close()
        let table = Dictionary(uniqueKeysWithValues: routeTable.map { ("\($0.method) \($0.path)", $0.access) })
        #expect(table["GET /healthz"] == .anyone)
        #expect(table["GET /metrics"] == .anyone)
        #expect(table["GET /openapi.json"] == .anyone)
        #expect(table["GET /readyz"] == .anyone)
        // The dashboard's page and files: it asks for a token itself.
        #expect(table["GET /dashboard"] == .anyone)
        #expect(table["GET /dashboard/{file}"] == .anyone)
        #expect(table["GET /v1/me"] == .role(.user))
        #expect(table["GET /v1/localization"] == .role(.user))
        #expect(table["GET /v1/localization/locales"] == .role(.user))
        #expect(table["GET /v1/localization/{locale}"] == .role(.user))
        #expect(table["PUT /v1/localization/{locale}"] == .role(.admin))
        #expect(table["DELETE /v1/localization/{locale}/{key}"] == .role(.admin))
        #expect(table["GET /v1/rules"] == .role(.moderator))
        #expect(table["GET /v1/rules/{id}"] == .role(.moderator))
        #expect(table["POST /v1/rules"] == .role(.admin))
        #expect(table["PATCH /v1/rules/{id}"] == .role(.admin))
        #expect(table["DELETE /v1/rules/{id}"] == .role(.admin))
        #expect(table["POST /v1/rules/import"] == .role(.admin))
        #expect(table["POST /v1/moderation/check"] == .role(.moderator))
        #expect(table["GET /v1/config"] == .role(.admin))
        #expect(table["PATCH /v1/config"] == .role(.admin))
        #expect(table["POST /v1/channels/{channel_id}/messages"] == .role(.user))
        #expect(table["GET /v1/channels/{channel_id}/messages"] == .role(.user))
        #expect(table["GET /v1/messages/{id}"] == .role(.user))
        #expect(table["PATCH /v1/messages/{id}"] == .role(.user))
        #expect(table["DELETE /v1/messages/{id}"] == .role(.user))
        #expect(table["POST /v1/messages/{id}/resend"] == .role(.user))
        #expect(table["GET /v1/messages/{id}/actions"] == .role(.user))
        #expect(table["GET /v1/messages/{id}/revisions"] == .role(.moderator))
        #expect(table["GET /v1/users/{user_id}/messages"] == .role(.moderator))
        #expect(table["POST /v1/users/{user_id}/ban"] == .role(.moderator))
        #expect(table["DELETE /v1/users/{user_id}/ban"] == .role(.moderator))
        #expect(table["GET /v1/bans"] == .role(.moderator))
        #expect(table["GET /v1/audit"] == .role(.moderator))
        #expect(table["POST /v1/messages/{id}/flag"] == .role(.user))
        #expect(table["DELETE /v1/messages/{id}/flag"] == .role(.user))
        #expect(table["GET /v1/flags"] == .role(.moderator))
        #expect(table["GET /v1/review-queue"] == .role(.moderator))
        #expect(table["POST /v1/messages/{id}/review"] == .role(.moderator))
        #expect(table["POST /v1/review-queue/decisions"] == .role(.moderator))
        #expect(table["POST /v1/admin/backup"] == .role(.admin))
        #expect(table["GET /v1/events"] == .role(.moderator))
        #expect(table["GET /v1/events/stream"] == .role(.moderator))
        for route in ["POST /v1/webhooks", "GET /v1/webhooks", "GET /v1/webhooks/{id}", "PATCH /v1/webhooks/{id}", "DELETE /v1/webhooks/{id}",
                      "POST /v1/webhooks/{id}/test", "GET /v1/webhooks/{id}/deliveries"] {
            #expect(table[route] == .role(.admin), "\(route)")
        }
        #expect(table["GET /v1/rules/stats"] == .role(.moderator))
        #expect(table["GET /v1/rules/{id}/stats"] == .role(.moderator))
        #expect(table["POST /v1/rules/dry-run"] == .role(.moderator))
        // Appeals: a user's of their own messages and ban (open to banned users), moderators decide.
        #expect(table["POST /v1/messages/{id}/appeal"] == .role(.user))
        #expect(table["POST /v1/me/ban/appeal"] == .role(.user))
        #expect(table["GET /v1/me/appeals"] == .role(.user))
        #expect(table["GET /v1/appeals"] == .role(.moderator))
        #expect(table["POST /v1/appeals/{id}/decision"] == .role(.moderator))
        #expect(table["GET /v1/users/{user_id}/strikes"] == .role(.moderator))
        // Harm scores: the versions, and the APIs of hosted classifiers (their own error shapes).
        #expect(table["GET /v1/classifiers"] == .role(.moderator))
        #expect(table["GET /v1/classifiers/{id}"] == .role(.moderator))
        #expect(table["POST /v1/classifiers/train"] == .role(.admin))
        #expect(table["POST /v1/classifiers/{id}/activate"] == .role(.admin))
        #expect(table["POST /v1alpha1/comments:analyze"] == .role(.moderator))
        #expect(table["GET /$discovery/rest"] == .anyone)
        #expect(table["POST /v1/moderations"] == .role(.moderator))
        // The chat servers' routes: each checks its server's own secret.
        #expect(table["POST /v1/integrations/matrix/{callback}"] == .integration)
        #expect(table["POST /v1/integrations/stream/before-message-send"] == .integration)
        #expect(table.count == 68, "a new route needs its line here: \(table.keys.sorted())")
    }
}
