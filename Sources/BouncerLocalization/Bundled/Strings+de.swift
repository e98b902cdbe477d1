extension BundledStrings {
    /// German (de). Same keys and format placeholders as `en`, which is the fallback.
    static let de: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "Bist du sicher?",
        "message.moderation.alert.message": "Überleg dir, wie dein Kommentar auf andere wirken könnte, und halte dich an unsere Community-Richtlinien.",
        "message.moderation.alert.resend": "Trotzdem senden",
        "message.moderation.alert.edit": "Nachricht bearbeiten",
        "message.moderation.alert.delete": "Nachricht löschen",
        "message.bounce.title": "Nachricht wurde abgelehnt",
        "message.actions.flag": "Nachricht melden",
        "message.actions.flag.confirmation-title": "Nachricht melden",
        "message.actions.flag.confirmation-message": "Möchtest du eine Kopie dieser Nachricht zur weiteren Prüfung an einen Moderator senden?",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "Melden",
        "message.actions.edit": "Nachricht bearbeiten",
        "message.actions.delete": "Nachricht löschen",
        "message.actions.delete.confirmation-title": "Nachricht löschen",
        "message.actions.delete.confirmation-message": "Möchtest du diese Nachricht wirklich endgültig löschen?",
        "message.actions.delete.confirmation-button": "Löschen",
        "message.actions.resend": "Trotzdem senden",
        "message.deleted.text": "Diese Nachricht wurde gelöscht.",

        // Problem titles, by status.
        "error.400.title": "Ungültige Anfrage",
        "error.401.title": "Nicht autorisiert",
        "error.403.title": "Verboten",
        "error.404.title": "Nicht gefunden",
        "error.405.title": "Methode nicht erlaubt",
        "error.408.title": "Zeitüberschreitung der Anfrage",
        "error.409.title": "Konflikt",
        "error.413.title": "Inhalt zu groß",
        "error.414.title": "URI zu lang",
        "error.415.title": "Nicht unterstützter Medientyp",
        "error.417.title": "Erwartung fehlgeschlagen",
        "error.422.title": "Nicht verarbeitbarer Inhalt",
        "error.429.title": "Zu viele Anfragen",
        "error.431.title": "Header-Felder der Anfrage zu groß",
        "error.500.title": "Interner Serverfehler",
        "error.501.title": "Nicht implementiert",
        "error.503.title": "Dienst nicht verfügbar",
        "error.505.title": "HTTP-Version nicht unterstützt",

        // Problem details, by code.
        "error.not_found.detail": "Unter diesem Pfad gibt es nichts.",
        "error.method_not_allowed.detail": "%1$@ ist hier nicht erlaubt; erlaubt: %2$@.",
        "error.unauthenticated.detail": "Dafür ist ein Bearer-Token im Authorization-Header nötig.",
        "error.invalid_token.detail": "Das Token ist fehlerhaft, gefälscht, abgelaufen oder noch nicht gültig.",
        "error.forbidden.detail": "Dafür ist die Rolle %@ nötig.",
        "error.rate_limited.detail": "Zu viele Nachrichten; versuch es in %d Sekunden erneut.",
        "error.body_too_large.detail": "Der Anfragetext ist größer als %d Bytes.",
        "error.unsupported_media_type.detail": "Der Anfragetext muss JSON sein (Content-Type: application/json).",
        "error.invalid_json.detail": "Der Anfragetext ist kein gültiges JSON.",
        "error.json_too_deep.detail": "Der JSON-Text ist tiefer als %d Ebenen verschachtelt.",
        "error.request_timeout.detail": "Die Anfrage ist nicht rechtzeitig eingegangen.",
        "error.internal_error.detail": "Der Server konnte die Anfrage nicht abschließen.",
        "error.not_ready.detail": "Der Datenspeicher ist nicht geöffnet oder nicht migriert.",
        "error.locale_not_found.detail": "Für das Gebietsschema %@ gibt es keine Texte.",
    ]
}
