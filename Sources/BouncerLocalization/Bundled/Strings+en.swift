extension BundledStrings {
    /// English: the source texts, and the last fallback for every other locale. Every key of
    /// every other locale exists here, with the same format placeholders (`%@`, `%d`, `%1$@`).
    static let en: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "Are you sure?",
        "message.moderation.alert.message": "Consider how your comment might make others feel and be sure to follow our Community Guidelines.",
        "message.moderation.alert.resend": "Send Anyway",
        "message.moderation.alert.edit": "Edit Message",
        "message.moderation.alert.delete": "Delete Message",
        "message.bounce.title": "Message was bounced",
        "message.actions.flag": "Flag Message",
        "message.actions.flag.confirmation-title": "Flag Message",
        "message.actions.flag.confirmation-message": "Do you want to send a copy of this message to a moderator for further investigation?",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "Flag",
        "message.actions.edit": "Edit Message",
        "message.actions.delete": "Delete Message",
        "message.actions.delete.confirmation-title": "Delete Message",
        "message.actions.delete.confirmation-message": "Are you sure you want to permanently delete this message?",
        "message.actions.delete.confirmation-button": "Delete",
        "message.actions.resend": "Send Anyway",
        "message.deleted.text": "This message was deleted.",

        // Problem titles, by status.
        "error.400.title": "Bad Request",
        "error.401.title": "Unauthorized",
        "error.403.title": "Forbidden",
        "error.404.title": "Not Found",
        "error.405.title": "Method Not Allowed",
        "error.408.title": "Request Timeout",
        "error.409.title": "Conflict",
        "error.413.title": "Content Too Large",
        "error.414.title": "URI Too Long",
        "error.415.title": "Unsupported Media Type",
        "error.417.title": "Expectation Failed",
        "error.422.title": "Unprocessable Content",
        "error.429.title": "Too Many Requests",
        "error.431.title": "Request Header Fields Too Large",
        "error.500.title": "Internal Server Error",
        "error.501.title": "Not Implemented",
        "error.503.title": "Service Unavailable",
        "error.505.title": "HTTP Version Not Supported",

        // Problem details, by code.
        "error.not_found.detail": "There is nothing at this path.",
        "error.method_not_allowed.detail": "%1$@ is not allowed here; allowed: %2$@.",
        "error.unauthenticated.detail": "This needs a bearer token in the Authorization header.",
        "error.invalid_token.detail": "The token is malformed, forged, expired or not yet valid.",
        "error.forbidden.detail": "This needs the %@ role.",
        "error.rate_limited.detail": "Too many messages; try again in %d seconds.",
        "error.body_too_large.detail": "The request body is larger than %d bytes.",
        "error.unsupported_media_type.detail": "The body must be JSON (Content-Type: application/json).",
        "error.invalid_json.detail": "The request body is not valid JSON.",
        "error.json_too_deep.detail": "The JSON body nests deeper than %d levels.",
        "error.request_timeout.detail": "The request was not received in time.",
        "error.internal_error.detail": "The server could not complete the request.",
        "error.not_ready.detail": "The store is not open or not migrated.",
        "error.locale_not_found.detail": "There are no texts for the locale %@.",
    ]
}
