import BouncerApplication
import BouncerIdentity
import BouncerStore
import Foundation
import HTTPServer

struct SettingsRoutes: Sendable {
    let settings: LiveSettings
    let audit: Audit

    func register(in routes: inout Routes) {
        routes.group("/v1/config") { group in
            let settings = self.settings
            let audit = self.audit
            group.get("", .admin) { _, _ in try Response.encoded(settings.value) }
            group.patch("", .admin) { request, identity in
                try request.checkJSONBody()
                let updated = try await settings.update(to: try LiveSettings.merged(settings.value, request.body, catalog: settings.localization.catalog),
                                                        by: identity.userID)
                try await audit.record(identity, "config.update", "config", "settings",
                                       details: ["changed": String(decoding: request.body.prefix(2000), as: UTF8.self)])
                return try Response.encoded(updated)
            }
    

        }

    }
}
