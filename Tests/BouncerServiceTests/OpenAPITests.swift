import BouncerIdentity
import BouncerLocalization
import BouncerStore
import Foundation
import Testing
import TestSupport
@testable import BouncerService

@Suite struct OpenAPITests {
    @Test func theDocumentDescribesExactlyTheRoutesWithTheirRoles() async throws {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var documented: [String: String] = [:]
        for (path, operations) in paths {
            for (method, operation) in operations {
                let role = (operation as? [String: Any])?["x-bouncer-role"] as? String ?? "?"
                documented["\(method.uppercased()) \(path)"] = role
            }
        }

        let directory = try TemporaryDirectory()
        var configuration = ServiceConfiguration()
        configuration.dataDirectory = directory.path("data")
        let store = try SQLiteStore(path: configuration.storePath, migrations: try loadMigrations(configuration))
        defer { store.close() }
        let logger = Logger(level: .error)
        let localization = Localization(fileOverrides: [:], apiOverrides: OverrideSnapshot(sequence: 0, overrides: [:]), defaultLocale: "en", repository: store)
        let limiter = RateLimiter(rate: 10)
        let routes = makeRoutes(
            store: store, localization: localization, rules: try await Rules(repository: store, logger: logger),
            settings: try await LiveSettings(repository: store, defaults: Settings(), localization: localization, sendLimiter: limiter),
            bans: try await BanList(repository: store),
            authenticator: Authenticator(verifier: TokenVerifier(secret: Array("x".utf8)), logger: logger), sendLimiter: limiter)
        let served = Dictionary(uniqueKeysWithValues: routes.table.map { ("\($0.method) \($0.path)", $0.access.description) })
        #expect(Set(served.keys).subtracting(documented.keys).isEmpty, "undocumented: \(Set(served.keys).subtracting(documented.keys).sorted())")
        #expect(Set(documented.keys).subtracting(served.keys).isEmpty, "documented, not served: \(Set(documented.keys).subtracting(served.keys).sorted())")
        for (route, access) in served {
            #expect(documented[route] == access, "\(route): served for \(access), documented for \(documented[route] ?? "nobody")")
        }
        // Every $ref points at something.
        let components = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let refs = OpenAPIDocument.json.matches(of: /"#\/components\/schemas\/([A-Za-z]+)"/).map { String($0.1) }
        #expect(!refs.isEmpty)
        for name in Set(refs) { #expect(components[name] != nil, "missing schema \(name)") }
    }

    @Test func theOverridableKeysAreTheBundledOnes() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let update = try #require(schemas["StringsUpdate"] as? [String: Any])
        let strings = try #require((update["properties"] as? [String: Any])?["strings"] as? [String: Any])
        let names = try #require((strings["propertyNames"] as? [String: Any])?["enum"] as? [String])
        #expect(names == BundledStrings.keys)
    }
}
