import BouncerApplication
import BouncerIdentity
import BouncerStore
import Foundation
import HTTPServer

struct SettingsRoutes: Sendable {
    let settings: LiveSettings
    let audit: Audit

    func register(in routes: inout Routes) {
        let settings = self.settings
        let audit = self.audit
        routes.add("GET", "/v1/config", .admin) { _, _ in try Response.encoded(settings.value) }
        routes.add("PATCH", "/v1/config", .admin) { request, identity in
            try request.checkJSONBody()
            let updated = try await settings.update(to: try LiveSettings.merged(settings.value, request.body, catalog: settings.localization.catalog),
                                                    by: identity.userID)
            try await audit.record(identity, "config.update", "config", "settings",
                                   details: ["changed": String(decoding: request.body.prefix(2000), as: UTF8.self)])
            return try Response.encoded(updated)
        }
    }
}
