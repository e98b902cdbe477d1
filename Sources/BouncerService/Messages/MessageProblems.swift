import BouncerApplication
import BouncerLocalization
import BouncerDomain
import BouncerModeration
import HTTPServer

extension MessageText {
    /// No message the caller may see has that id.
    static let notFound = HTTPError(.notFound, code: "message_not_found", detail: "There is no such message.")
}

/// The one table from the message use cases' errors to the API's problems.
extension MessageError {
    static let userBannedProblem = HTTPError(.forbidden, code: "user_banned", detail: "You are banned from sending messages.")

    /// The problem the API answers with. `choice` and `alertActionsEnabled`: an edit's refusal
    /// carries the alert, in the caller's language, when alert actions are on (and a language given).
    func problem(_ choice: Catalog.Choice? = nil, alertActionsEnabled: Bool = false) -> HTTPError {
        switch self {
        case .userBanned: Self.userBannedProblem
        case .textLength(let max):
            HTTPError.badRequest("invalid_field", "`text` must be 1 to \(max) characters.").keyed("field.length", "text", 1, max)
        case .textBlank: HTTPError.badRequest("invalid_field", "`text` is blank.").keyed("messages.blank")
        case .customTooLarge:
            HTTPError.badRequest("invalid_field", "`custom` is larger than \(MessageText.maxCustomBytes) bytes.")
                .keyed("field.too_large", "custom", MessageText.maxCustomBytes)
        case .notFound: MessageText.notFound
        case .notAuthor: HTTPError(.forbidden, code: "not_author", detail: "Only the author can do this.")
        case .deleted: HTTPError(.conflict, code: "message_deleted", detail: "A deleted message cannot be edited.")
        case .notBounced: HTTPError(.conflict, code: "not_bounced", detail: "Only a bounced message can be sent anyway.")
        case .idTaken: HTTPError(.conflict, code: "id_conflict", detail: "The message id is taken by another message.").keyed("messages.id_taken")
        case .parentNotFound:
            // Well formed, but pointing at nothing this sender can reply to.
            HTTPError(.unprocessableContent, code: "parent_not_found", detail: "`parent_id` is not a message of this channel.").keyed("messages.parent")
        case .editRefused(let verdict, let action, let text):
            Self.editRefused(verdict, action, text: text, choice: choice, alertActionsEnabled: alertActionsEnabled)
        }
    }

    /// 422 `edit_refused`, its body carrying the verdict (as the author may see it) and the alert.
    private static func editRefused(_ verdict: Verdict, _ action: RuleAction, text: String, choice: Catalog.Choice?,
                                    alertActionsEnabled: Bool) -> HTTPError {
        var record = ModerationRecord(verdict: verdict, originalText: text, flagged: false)
        record.observed = nil  // the author's answer: observed rules are for moderators
        var extensions: [(name: String, json: String)] = [("moderation", record.json)]
        if action.isBounce, alertActionsEnabled, let choice {
            extensions.append(("alert", Alert(bounceAction: action, choice: choice).json))
        }
        return HTTPError(.unprocessableContent, code: "edit_refused",
                         detail: "Moderation refused the new text; the message is unchanged.", extensions: extensions)
    }
}
