import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An RFC 9457 problem the service answered with: its status, its localized texts and its code.
public struct Problem: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// The status's title, in the request's language.
    public var title: String
    /// What went wrong, in the request's language where a translation exists.
    public var detail: String
    /// The stable snake_case code to switch on (`message_not_found`, `user_banned` ...).
    public var code: String
    /// The request's id, as the service logged it.
    public var requestID: String?
    /// Seconds to wait before trying again, from `Retry-After` (429 and 503).
    public var retryAfter: Int?
    /// For `edit_refused`: why moderation refused the new text.
    public var moderation: Moderation?
    /// For `edit_refused` of a text that would be bounced: the alert, when the service shows alerts.
    public var alert: BouncedMessageAlert?

    /// Creates a problem.
    public init(status: Int, title: String, detail: String, code: String, requestID: String? = nil, retryAfter: Int? = nil,
                moderation: Moderation? = nil, alert: BouncedMessageAlert? = nil) {
        self.status = status
        self.title = title
        self.detail = detail
        self.code = code
        self.requestID = requestID
        self.retryAfter = retryAfter
        self.moderation = moderation
        self.alert = alert
    }
}

/// What went wrong with a call: one case for each problem `code` the API documents, the problem
/// of a code BouncerKit does not know (``unknown(code:problem:)``), or a failure below HTTP.
///
/// ```swift
/// do {
///     try await client.send("hi", to: "messaging:general")
/// } catch BouncerError.userBanned(let problem) {
///     showBanner(problem.detail)
/// }
/// ```
public enum BouncerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 400: the body is not valid JSON.
    case invalidJSON(Problem)
    /// 400: a field is missing or wrong (a blank text, an unknown flag reason ...).
    case invalidField(Problem)
    /// 400: a page cursor the service did not give out.
    case invalidCursor(Problem)
    /// 401: no token was sent.
    case unauthenticated(Problem)
    /// 401: the token is malformed, forged or expired.
    case invalidToken(Problem)
    /// 403: the caller's role may not do this.
    case forbidden(Problem)
    /// 403: only the message's author may do this.
    case notAuthor(Problem)
    /// 403: one's own message cannot be flagged.
    case ownMessage(Problem)
    /// 403: the user is banned.
    case userBanned(Problem)
    /// 404: nothing at this path.
    case notFound(Problem)
    /// 404: no such message, or not one the caller may see.
    case messageNotFound(Problem)
    /// 404: the caller has no open flag on the message.
    case flagNotFound(Problem)
    /// 404: the service has no texts for the locale.
    case localeNotFound(Problem)
    /// 409: the client message id was used before, by another user or with another text.
    case idConflict(Problem)
    /// 409: Send Anyway of a message that is not bounced.
    case notBounced(Problem)
    /// 409: a deleted message cannot be edited.
    case messageDeleted(Problem)
    /// 409: the message was appealed already.
    case appealExists(Problem)
    /// 409: the message cannot be appealed.
    case notAppealable(Problem)
    /// 413: the body is too large.
    case bodyTooLarge(Problem)
    /// 415: the body is not JSON.
    case unsupportedMediaType(Problem)
    /// 422: moderation refused an edit of a delivered message; the message is unchanged.
    /// ``Problem/moderation`` says why, and ``Problem/alert`` is the alert to show.
    case editRefused(Problem)
    /// 422: the message replied to does not exist.
    case parentNotFound(Problem)
    /// 429: too many sends; ``Problem/retryAfter`` says when to try again.
    case rateLimited(Problem)
    /// 500: the service failed (it says nothing more; its log does).
    case internalError(Problem)
    /// 503: the store cannot take the request now; ``Problem/retryAfter`` says when to try again.
    case storeUnavailable(Problem)
    /// A problem with a code this version of BouncerKit does not know.
    case unknown(code: String, problem: Problem)
    /// No HTTP answer: the connection failed or timed out.
    case connection(description: String)
    /// An answer that is neither the expected JSON nor a problem.
    case unexpectedResponse(status: Int, body: String)

    private static let byCode: [String: @Sendable (Problem) -> BouncerError] = [
        "invalid_json": BouncerError.invalidJSON, "invalid_field": BouncerError.invalidField,
        "invalid_cursor": BouncerError.invalidCursor, "unauthenticated": BouncerError.unauthenticated,
        "invalid_token": BouncerError.invalidToken, "forbidden": BouncerError.forbidden,
        "not_author": BouncerError.notAuthor, "own_message": BouncerError.ownMessage,
        "user_banned": BouncerError.userBanned, "not_found": BouncerError.notFound,
        "message_not_found": BouncerError.messageNotFound, "flag_not_found": BouncerError.flagNotFound,
        "locale_not_found": BouncerError.localeNotFound, "id_conflict": BouncerError.idConflict,
        "not_bounced": BouncerError.notBounced, "message_deleted": BouncerError.messageDeleted,
        "appeal_exists": BouncerError.appealExists, "not_appealable": BouncerError.notAppealable,
        "body_too_large": BouncerError.bodyTooLarge, "unsupported_media_type": BouncerError.unsupportedMediaType,
        "edit_refused": BouncerError.editRefused, "parent_not_found": BouncerError.parentNotFound,
        "rate_limited": BouncerError.rateLimited, "internal_error": BouncerError.internalError,
        "store_unavailable": BouncerError.storeUnavailable,
    ]

    /// The error for a problem the service answered with.
    public init(_ problem: Problem) {
        self = Self.byCode[problem.code]?(problem) ?? .unknown(code: problem.code, problem: problem)
    }

    /// The problem the service answered with; nil for failures below HTTP.
    public var problem: Problem? {
        switch self {
        case .invalidJSON(let p), .invalidField(let p), .invalidCursor(let p), .unauthenticated(let p), .invalidToken(let p),
             .forbidden(let p), .notAuthor(let p), .ownMessage(let p), .userBanned(let p), .notFound(let p),
             .messageNotFound(let p), .flagNotFound(let p), .localeNotFound(let p), .idConflict(let p), .notBounced(let p),
             .messageDeleted(let p), .appealExists(let p), .notAppealable(let p), .bodyTooLarge(let p),
             .unsupportedMediaType(let p), .editRefused(let p), .parentNotFound(let p), .rateLimited(let p),
             .internalError(let p), .storeUnavailable(let p), .unknown(_, let p):
            return p
        case .connection, .unexpectedResponse:
            return nil
        }
    }

    /// The problem's code; nil for failures below HTTP.
    public var code: String? { problem?.code }

    /// The HTTP status; nil when there was no answer.
    public var status: Int? {
        if case .unexpectedResponse(let status, _) = self { return status }
        return problem?.status
    }

    public var description: String {
        if let problem { return "\(problem.status) \(problem.code): \(problem.detail)" }
        switch self {
        case .connection(let description): return "connection failed: \(description)"
        case .unexpectedResponse(let status, let body): return "unexpected answer \(status): \(body.prefix(200))"
        default: return "error"
        }
    }
}

extension Problem {
    /// Reads a problem body; nil when `data` is not one.
    init?(data: Data, response: HTTPURLResponse) {
        guard let object = try? JSONDecoder().decode(Body.self, from: data) else { return nil }
        self.init(status: object.status ?? response.statusCode, title: object.title ?? "", detail: object.detail ?? "",
                  code: object.code, requestID: object.request_id ?? response.value(forHTTPHeaderField: "X-Request-Id"),
                  retryAfter: response.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) },
                  moderation: object.moderation, alert: object.alert)
    }

    private struct Body: Decodable {
        var status: Int?
        var title: String?
        var detail: String?
        var code: String
        var request_id: String?
        var moderation: Moderation?
        var alert: BouncedMessageAlert?
    }
}
