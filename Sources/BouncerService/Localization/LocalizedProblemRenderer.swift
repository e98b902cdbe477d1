import BouncerApplication
import BouncerLocalization
import BouncerStore
import Foundation
import HTTPServer
import Locking

/// Problem JSON with the title and, where a translation exists, the detail in the request's
/// language.
struct LocalizedProblemRenderer: ProblemRenderer {
    let localization: Localization
    /// Knows the store's failures that are a 503, not a 500.
    var availability: StoreAvailability?

    /// A service's refusal is its problem wherever it is thrown from (a chat server's hook
    /// included), never a 500; a failure of the store is the 503 it calls for.
    func problem(for error: any Error) -> HTTPError? {
        switch error {
        case let refusal as MessageError: refusal.problem()
        case let refusal as ReviewRefusal: refusal.problem
        case let refusal as AppealDecisionRefusal: refusal.problem
        case let refusal as BanRefusal: refusal.problem
        case let refusal as ClassifierRefusal: refusal.problem
        default: availability?.problem(for: error)
        }
    }

    func render(_ error: HTTPError, for head: RequestHead?, requestID: String) -> Response {
        let choice = localization.choice(for: head)
        let titleKey = "error.\(error.status.code).title"
        let title = choice.has(titleKey) ? choice.text(titleKey) : error.status.reasonPhrase
        let detail = Self.detail(error, in: choice)
        var response = DefaultProblemRenderer.problemResponse(error, title: title, detail: detail, requestID: requestID)
        Localization.mark(&response, choice)
        return response
    }

    /// The text key of an error's detail: its own (`error.detail.<key>`) when the throw site
    /// names one, else its code's (`error.<code>.detail`). A detail key is never exchanged for
    /// the code's: a code with several details has no text for them all.
    static func detailKey(_ error: HTTPError) -> String {
        error.detailKey.map { "error.detail.\($0)" } ?? "error.\(error.code).detail"
    }

    /// The detail in `choice`'s language: the key's text with the error's values, when the text
    /// takes as many as the error has; else the English detail as thrown.
    static func detail(_ error: HTTPError, in choice: Catalog.Choice) -> String {
        let key = detailKey(error)
        guard choice.has(key), FormatPlaceholders.placeholders(in: choice.text(key)).count == error.detailArguments.count else {
            return error.detail
        }
        let text = error.detailPrefix + choice.text(key, error.detailArguments)
        assert(error.detailKey == nil || BundledStrings.en[key].map { error.detailPrefix + FormatPlaceholders.format($0, error.detailArguments) } == error.detail,
               "the English text of \(key) differs from the detail thrown: \(error.detail)")
        return text
    }
}
