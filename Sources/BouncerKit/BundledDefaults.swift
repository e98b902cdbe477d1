/// The texts BouncerKit shows when neither the app nor the service has one: the service's
/// English texts of the same keys (Sources/BouncerLocalization/Translations/en.strings).
enum BundledDefaults {
    static let english: [String: String] = [
        "message.moderation.alert.title": "Are you sure?",
        "message.moderation.alert.message":
            "Consider how your comment might make others feel and be sure to follow our Community Guidelines.",
        "message.moderation.alert.resend": "Send Anyway",
        "message.moderation.alert.edit": "Edit Message",
        "message.moderation.alert.delete": "Delete Message",
        "message.bounce.title": "Message was bounced",
        "message.actions.flag": "Flag Message",
        "message.actions.flag.confirmation-title": "Flag Message",
        "message.actions.flag.confirmation-message":
            "Do you want to send a copy of this message to a moderator for further investigation?",
        "message.actions.flag.confirmation-button": "Flag",
        "message.actions.edit": "Edit Message",
        "message.actions.delete": "Delete Message",
        "message.actions.delete.confirmation-title": "Delete Message",
        "message.actions.delete.confirmation-message": "Are you sure you want to permanently delete this message?",
        "message.actions.delete.confirmation-button": "Delete",
        "message.actions.resend": "Send Anyway",
        "message.deleted.text": "This message was deleted.",
    ]
}
