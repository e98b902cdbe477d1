import BouncerDomain
import BouncerIdentity
import BouncerLocalization
import BouncerSQLite
import BouncerStore
import Foundation
import Testing
import TestSupport
@testable import BouncerApplication
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

        let service = try await ServiceHarness()
        let routeTable = service.application.routeTable
        await service.close()
        let served = Dictionary(uniqueKeysWithValues: routeTable.map { ("\($0.method) \($0.path)", $0.access.description) })
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

    /// What code generators need: an `operationId` on every operation, unique and camelCase; the
    /// headers clients send declared where they apply; no enum with `null` among its values.
    @Test func theDocumentSuitsCodeGenerators() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var operationIDs: [String: String] = [:]
        for (path, operations) in paths {
            for (method, value) in operations {
                let route = "\(method.uppercased()) \(path)"
                let operation = try #require(value as? [String: Any])
                let id = try #require(operation["operationId"] as? String, "\(route) has no operationId")
                #expect(id.wholeMatch(of: /[a-z][A-Za-z0-9]*/) != nil, "\(route): operationId \(id) is not camelCase")
                #expect(operationIDs[id] == nil, "\(route) and \(operationIDs[id] ?? "") share the operationId \(id)")
                operationIDs[id] = route
                let parameters = (operation["parameters"] as? [[String: Any]] ?? []).compactMap { $0["$ref"] as? String }
                #expect(parameters.contains("#/components/parameters/RequestID"), "\(route) does not declare X-Request-Id")
                let unlocalized: Set = ["GET /healthz", "GET /metrics", "GET /openapi.json"]
                #expect(unlocalized.contains(route) || parameters.contains("#/components/parameters/AcceptLanguage"),
                        "\(route) does not declare Accept-Language")
            }
        }
        #expect(OpenAPIDocument.json.firstMatch(of: /"enum": \[[^\]]*null/) == nil, "an enum lists null")
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let flag = try #require(((schemas["FlagInput"] as? [String: Any])?["properties"] as? [String: Any])?["reason"] as? [String: Any])
        #expect(flag["enum"] == nil, "flag reasons are whatever an admin configured")
        let create = try #require(schemas["RuleCreate"] as? [String: Any])
        let mapping = try #require((create["discriminator"] as? [String: Any])?["mapping"] as? [String: String])
        #expect(Set(mapping.keys) == Set(RuleKind.allCases.map(\.rawValue)))
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
