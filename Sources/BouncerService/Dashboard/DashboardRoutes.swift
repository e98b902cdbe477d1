import BouncerApplication
import BouncerLocalization
import HTTPServer
import JSON

/// `GET /dashboard`: the moderators' web page, and `GET /dashboard/{file}` its scripts and style.
/// The files are `Dashboard/Assets`, embedded in the binary: plain HTML, CSS and JavaScript
/// modules, with no build step. The page needs no token to load; it asks for one and talks to
/// the v1 API with it. Its own texts come with it, in the request's locale from the same
/// catalogs as the API's (`dashboard.*` keys), so even the sign-in screen is translated.
struct DashboardRoutes: Sendable {
    let localization: Localization

    /// Only the page's own files, and no other source: what keeps it from calling any other host
    /// (or running a script injected into a message it shows).
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

    private struct Asset {
        let bytes: [UInt8]
        let contentType: String
    }

    private static let assets: [String: Asset] = [
        "dashboard.css": Asset(bytes: EmbeddedFiles.dashboard_css, contentType: "text/css; charset=utf-8"),
        "app.js": Asset(bytes: EmbeddedFiles.app_js, contentType: "text/javascript; charset=utf-8"),
        "api.js": Asset(bytes: EmbeddedFiles.api_js, contentType: "text/javascript; charset=utf-8"),
        "ui.js": Asset(bytes: EmbeddedFiles.ui_js, contentType: "text/javascript; charset=utf-8"),
        "queue.js": Asset(bytes: EmbeddedFiles.queue_js, contentType: "text/javascript; charset=utf-8"),
        "appeals.js": Asset(bytes: EmbeddedFiles.appeals_js, contentType: "text/javascript; charset=utf-8"),
        "rules.js": Asset(bytes: EmbeddedFiles.rules_js, contentType: "text/javascript; charset=utf-8"),
        "activity.js": Asset(bytes: EmbeddedFiles.activity_js, contentType: "text/javascript; charset=utf-8"),
        "users.js": Asset(bytes: EmbeddedFiles.users_js, contentType: "text/javascript; charset=utf-8"),
        "settings.js": Asset(bytes: EmbeddedFiles.settings_js, contentType: "text/javascript; charset=utf-8"),
    ]
    private static let page = String(decoding: EmbeddedFiles.index_html, as: UTF8.self)

    /// The dashboard's own texts: the catalogs' keys that start so.
    static let textKeys = BundledStrings.keys.filter { $0.hasPrefix("dashboard.") }
    /// Languages written right to left, by their primary subtag.
    private static let rightToLeft: Set<String> = ["ar", "he", "fa", "ur"]

    func register(in routes: inout Routes) {
        routes.group("/dashboard") { group in
            let localization = self.localization
            group.open("GET", "", .immediate { request in
                let choice = localization.choice(for: request.head)
                var response = Self.response(Array(Self.render(choice).utf8), "text/html; charset=utf-8")
                Localization.mark(&response, choice)
                return response
            })
            group.open("GET", "/{file}", .immediate { request in
                guard let asset = Self.assets[try request.parameter("file")] else {
                    throw HTTPError(.notFound, code: "not_found", detail: "The dashboard has no such file.").keyed("dashboard.no_file")
                }
                return Self.response(asset.bytes, asset.contentType)
            })
    

        }

    }

    /// The page for one locale: its language, its direction and its texts filled in.
    static func render(_ choice: Catalog.Choice) -> String {
        let strings = JSONValue.object(JSONObject(Dictionary(uniqueKeysWithValues: textKeys.map { ($0, JSONValue.string(choice.text($0))) })))
        // Inside a <script> element: no text may close it.
        let json = strings.serialized.replacingOccurrences(of: "<", with: "\\u003c")
        let language = choice.tag.split(separator: "-").first.map(String.init) ?? choice.tag
        return page
            .replacingOccurrences(of: "{{lang}}", with: choice.tag)
            .replacingOccurrences(of: "{{dir}}", with: rightToLeft.contains(language) ? "rtl" : "ltr")
            .replacingOccurrences(of: "{{title}}", with: escapeHTML(choice.text("dashboard.title")))
            .replacingOccurrences(of: "{{strings}}", with: json)
    }

    private static func escapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static func response(_ body: [UInt8], _ contentType: String) -> Response {
        Response(status: .ok, headers: [
            "Content-Type": contentType,
            "Content-Security-Policy": contentSecurityPolicy,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
            // Small, and changed by an upgrade: always asked for again (a 304 would save little).
            "Cache-Control": "no-cache",
        ], body: body)
    }
}
