import BouncerApplication
import BouncerLocalization
import HTTPServer

/// A request's language: negotiated from `?locale=` and `Accept-Language`, and marked on the answer.
extension Localization {
    /// The locale a request is answered in.
    func choice(for head: RequestHead?) -> Catalog.Choice {
        let catalog = self.catalog
        guard let head else { return catalog.defaultChoice }
        return catalog.negotiate(queryLocale: Self.queryLocale(head), acceptLanguage: head.headers["accept-language"])
    }

    private static func queryLocale(_ head: RequestHead) -> String? {
        guard let query = head.query, query.contains("locale=") else { return nil }
        return Request(head: head, id: "").query("locale")
    }

    /// Marks a response as carrying texts in `choice`'s language.
    static func mark(_ response: inout Response, _ choice: Catalog.Choice) {
        response.headers.set("Content-Language", choice.tag)
        response.headers.set("Vary", "Accept-Language")
    }
}
