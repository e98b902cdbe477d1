extension BundledStrings {
    /// Dutch (nl). Same keys and format placeholders as `en`, which is the fallback.
    static let nl: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "Weet je het zeker?",
        "message.moderation.alert.message": "Denk na over hoe je reactie bij anderen kan overkomen en houd je aan onze communityrichtlijnen.",
        "message.moderation.alert.resend": "Toch versturen",
        "message.moderation.alert.edit": "Bericht bewerken",
        "message.moderation.alert.delete": "Bericht verwijderen",
        "message.bounce.title": "Bericht is geweigerd",
        "message.actions.flag": "Bericht melden",
        "message.actions.flag.confirmation-title": "Bericht melden",
        "message.actions.flag.confirmation-message": "Wil je een kopie van dit bericht naar een moderator sturen voor verder onderzoek?",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "Melden",
        "message.actions.edit": "Bericht bewerken",
        "message.actions.delete": "Bericht verwijderen",
        "message.actions.delete.confirmation-title": "Bericht verwijderen",
        "message.actions.delete.confirmation-message": "Weet je zeker dat je dit bericht definitief wilt verwijderen?",
        "message.actions.delete.confirmation-button": "Verwijderen",
        "message.actions.resend": "Toch versturen",
        "message.deleted.text": "Dit bericht is verwijderd.",

        // Problem titles, by status.
        "error.400.title": "Ongeldig verzoek",
        "error.401.title": "Niet geautoriseerd",
        "error.403.title": "Verboden",
        "error.404.title": "Niet gevonden",
        "error.405.title": "Methode niet toegestaan",
        "error.408.title": "Time-out van verzoek",
        "error.409.title": "Conflict",
        "error.413.title": "Inhoud te groot",
        "error.414.title": "URI te lang",
        "error.415.title": "Mediatype niet ondersteund",
        "error.417.title": "Verwachting mislukt",
        "error.422.title": "Onverwerkbare inhoud",
        "error.429.title": "Te veel verzoeken",
        "error.431.title": "Headervelden van verzoek te groot",
        "error.500.title": "Interne serverfout",
        "error.501.title": "Niet geïmplementeerd",
        "error.503.title": "Dienst niet beschikbaar",
        "error.505.title": "HTTP-versie niet ondersteund",

        // Problem details, by code.
        "error.not_found.detail": "Op dit pad staat niets.",
        "error.method_not_allowed.detail": "%1$@ is hier niet toegestaan; toegestaan: %2$@.",
        "error.unauthenticated.detail": "Hiervoor is een bearer-token in de Authorization-header nodig.",
        "error.invalid_token.detail": "Het token is misvormd, vervalst, verlopen of nog niet geldig.",
        "error.forbidden.detail": "Hiervoor is de rol %@ nodig.",
        "error.rate_limited.detail": "Te veel berichten; probeer het over %d seconden opnieuw.",
        "error.body_too_large.detail": "De body van het verzoek is groter dan %d bytes.",
        "error.unsupported_media_type.detail": "De body moet JSON zijn (Content-Type: application/json).",
        "error.invalid_json.detail": "De body van het verzoek is geen geldige JSON.",
        "error.json_too_deep.detail": "De JSON-body is dieper genest dan %d niveaus.",
        "error.request_timeout.detail": "Het verzoek is niet op tijd ontvangen.",
        "error.internal_error.detail": "De server kon het verzoek niet voltooien.",
        "error.not_ready.detail": "De opslag is niet geopend of niet gemigreerd.",
        "error.locale_not_found.detail": "Er zijn geen teksten voor de landinstelling %@.",
    ]
}
