extension BundledStrings {
    /// Swedish (sv). Same keys and format placeholders as `en`, which is the fallback.
    static let sv: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "Är du säker?",
        "message.moderation.alert.message": "Tänk på hur din kommentar kan få andra att känna sig och se till att följa våra communityriktlinjer.",
        "message.moderation.alert.resend": "Skicka ändå",
        "message.moderation.alert.edit": "Redigera meddelande",
        "message.moderation.alert.delete": "Radera meddelande",
        "message.bounce.title": "Meddelandet avvisades",
        "message.actions.flag": "Rapportera meddelande",
        "message.actions.flag.confirmation-title": "Rapportera meddelande",
        "message.actions.flag.confirmation-message": "Vill du skicka en kopia av det här meddelandet till en moderator för vidare granskning?",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "Rapportera",
        "message.actions.edit": "Redigera meddelande",
        "message.actions.delete": "Radera meddelande",
        "message.actions.delete.confirmation-title": "Radera meddelande",
        "message.actions.delete.confirmation-message": "Vill du radera det här meddelandet permanent?",
        "message.actions.delete.confirmation-button": "Radera",
        "message.actions.resend": "Skicka ändå",
        "message.deleted.text": "Det här meddelandet har raderats.",

        // Problem titles, by status.
        "error.400.title": "Felaktig begäran",
        "error.401.title": "Obehörig",
        "error.403.title": "Förbjudet",
        "error.404.title": "Hittades inte",
        "error.405.title": "Metoden tillåts inte",
        "error.408.title": "Tidsgränsen för begäran överskreds",
        "error.409.title": "Konflikt",
        "error.413.title": "Innehållet är för stort",
        "error.414.title": "URI:n är för lång",
        "error.415.title": "Medietypen stöds inte",
        "error.417.title": "Förväntan misslyckades",
        "error.422.title": "Innehållet kan inte bearbetas",
        "error.429.title": "För många begäranden",
        "error.431.title": "Begärans huvudfält är för stora",
        "error.500.title": "Internt serverfel",
        "error.501.title": "Inte implementerad",
        "error.503.title": "Tjänsten är inte tillgänglig",
        "error.505.title": "HTTP-versionen stöds inte",

        // Problem details, by code.
        "error.not_found.detail": "Det finns inget på den här sökvägen.",
        "error.method_not_allowed.detail": "%1$@ tillåts inte här; tillåtna: %2$@.",
        "error.unauthenticated.detail": "Detta kräver en bearer-token i Authorization-huvudet.",
        "error.invalid_token.detail": "Token är felformaterad, förfalskad, har gått ut eller är inte giltig än.",
        "error.forbidden.detail": "Detta kräver rollen %@.",
        "error.rate_limited.detail": "För många meddelanden; försök igen om %d sekunder.",
        "error.body_too_large.detail": "Begärans brödtext är större än %d byte.",
        "error.unsupported_media_type.detail": "Brödtexten måste vara JSON (Content-Type: application/json).",
        "error.invalid_json.detail": "Begärans brödtext är inte giltig JSON.",
        "error.json_too_deep.detail": "JSON-brödtexten är nästlad djupare än %d nivåer.",
        "error.request_timeout.detail": "Begäran togs inte emot i tid.",
        "error.internal_error.detail": "Servern kunde inte slutföra begäran.",
        "error.not_ready.detail": "Lagringen är inte öppen eller inte migrerad.",
        "error.locale_not_found.detail": "Det finns inga texter för språkinställningen %@.",
    ]
}
