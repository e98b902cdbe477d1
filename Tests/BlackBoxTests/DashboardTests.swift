import Foundation
import Testing
import TestSupport

/// The dashboard's page and files as the server sends them. What the page does in a browser is
/// tested in a real Chromium (Tests/dashboard).
@Suite(.oneInstance) struct DashboardTests {
    /// The texts the page carries, from its `<script type="application/json" id="strings">`.
    static func strings(_ page: String) throws -> [String: String] {
        let start = try #require(page.range(of: #"<script type="application/json" id="strings">"#))
        let end = try #require(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
        let json = try JSONSerialization.jsonObject(with: Data(page[start.upperBound..<end.lowerBound].utf8))
        return try #require(json as? [String: String])
    }

    @Test func thePageLoadsWithoutATokenInTheBrowsersLanguageAndAllowsNoOtherHost() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let service = try ServiceProcess(arguments: ["--data-dir", directory.path("data")])
            let client = try service.client()

            let english = try client.request("GET", "/dashboard")
            #expect(english.status == 200)
            #expect(english.header("Content-Type") == "text/html; charset=utf-8")
            let policy = try #require(english.header("Content-Security-Policy"))
            #expect(policy.contains("default-src 'none'") && policy.contains("connect-src 'self'") && policy.contains("script-src 'self'"))
            #expect(english.text.contains(#"<html lang="en" dir="ltr">"#))
            let texts = try Self.strings(english.text)
            #expect(texts["dashboard.signin.button"] == "Sign in")
            #expect(texts.keys.allSatisfy { $0.hasPrefix("dashboard.") })

            let arabic = try client.request("GET", "/dashboard", headers: ["Accept-Language": "ar-EG, en;q=0.5"])
            #expect(arabic.text.contains(#"<html lang="ar" dir="rtl">"#))
            #expect(arabic.header("Content-Language") == "ar")
            #expect(try Self.strings(arabic.text)["dashboard.signin.button"] != "Sign in")
            #expect(try client.request("GET", "/dashboard?locale=he").text.contains(#"dir="rtl""#))
            #expect(try client.request("GET", "/dashboard?locale=de").text.contains(#"<html lang="de" dir="ltr">"#))

            // Every file the page names is served, and nothing from anywhere else is named.
            let names = english.text.matches(of: /(?:src|href)="([^"]+)"/).map { String($0.1) }
            #expect(names.contains("dashboard/app.js") && names.contains("dashboard/dashboard.css"))
            #expect(names.allSatisfy { $0.hasPrefix("dashboard/") || $0.hasPrefix("data:") || $0.hasPrefix("#/") })
            for name in names where name.hasPrefix("dashboard/") {
                let file = try client.request("GET", "/\(name)")
                #expect(file.status == 200, "\(name)")
                #expect(file.header("Content-Security-Policy") != nil)
            }
            let script = try client.request("GET", "/dashboard/app.js")
            #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
            // The modules it imports are served too.
            for module in script.text.matches(of: /from "\.\/([a-z]+\.js)"/).map({ String($0.1) }) {
                #expect(try client.request("GET", "/dashboard/\(module)").status == 200, "\(module)")
            }
            #expect(try client.request("GET", "/dashboard/missing.js").status == 404)
            #expect(try client.request("GET", "/dashboard/..%2Fopenapi.json").status == 404)
        }
    }

    @Test func anOverrideOfTheDashboardsTextsIsShownAndCannotCloseItsScript() async throws {
        try await blocking {
            let directory = try TemporaryDirectory()
            let data = directory.path("data")
            let admin = try LocalizationTests.token(data, role: "admin")
            let service = try ServiceProcess(arguments: ["--data-dir", data])
            let client = try service.client()
            let hostile = #"Go</script><script src="https://example.com/x.js"></script>"#
            let put = try client.request("PUT", "/v1/localization/en", headers: ["Authorization": "Bearer \(admin)", "Content-Type": "application/json"],
                                         body: #"{"strings":{"dashboard.signin.button":"Go<\/script><script src=\"https://example.com/x.js\"><\/script>"}}"#)
            #expect(put.status == 200)
            let page = try client.request("GET", "/dashboard")
            #expect(!page.text.contains("example.com/x.js\"></script>"))
            #expect(try Self.strings(page.text)["dashboard.signin.button"] == hostile)
        }
    }
}
