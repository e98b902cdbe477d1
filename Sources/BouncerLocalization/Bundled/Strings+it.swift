extension BundledStrings {
    /// Italian (it). Same keys and format placeholders as `en`, which is the fallback.
    static let it: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "Sei sicuro?",
        "message.moderation.alert.message": "Pensa a come il tuo commento potrebbe far sentire gli altri e assicurati di rispettare le nostre Linee guida della community.",
        "message.moderation.alert.resend": "Invia comunque",
        "message.moderation.alert.edit": "Modifica messaggio",
        "message.moderation.alert.delete": "Elimina messaggio",
        "message.bounce.title": "Messaggio respinto",
        "message.actions.flag": "Segnala messaggio",
        "message.actions.flag.confirmation-title": "Segnala messaggio",
        "message.actions.flag.confirmation-message": "Vuoi inviare una copia di questo messaggio a un moderatore per ulteriori verifiche?",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "Segnala",
        "message.actions.edit": "Modifica messaggio",
        "message.actions.delete": "Elimina messaggio",
        "message.actions.delete.confirmation-title": "Elimina messaggio",
        "message.actions.delete.confirmation-message": "Vuoi eliminare definitivamente questo messaggio?",
        "message.actions.delete.confirmation-button": "Elimina",
        "message.actions.resend": "Invia comunque",
        "message.deleted.text": "Questo messaggio è stato eliminato.",

        // Problem titles, by status.
        "error.400.title": "Richiesta non valida",
        "error.401.title": "Non autorizzato",
        "error.403.title": "Accesso negato",
        "error.404.title": "Non trovato",
        "error.405.title": "Metodo non consentito",
        "error.408.title": "Timeout della richiesta",
        "error.409.title": "Conflitto",
        "error.413.title": "Contenuto troppo grande",
        "error.414.title": "URI troppo lungo",
        "error.415.title": "Tipo di media non supportato",
        "error.417.title": "Aspettativa non soddisfatta",
        "error.422.title": "Contenuto non elaborabile",
        "error.429.title": "Troppe richieste",
        "error.431.title": "Campi dell’intestazione della richiesta troppo grandi",
        "error.500.title": "Errore interno del server",
        "error.501.title": "Non implementato",
        "error.503.title": "Servizio non disponibile",
        "error.505.title": "Versione HTTP non supportata",

        // Problem details, by code.
        "error.not_found.detail": "Non c’è nulla in questo percorso.",
        "error.method_not_allowed.detail": "%1$@ non è consentito qui; consentiti: %2$@.",
        "error.unauthenticated.detail": "È necessario un token Bearer nell’intestazione Authorization.",
        "error.invalid_token.detail": "Il token è malformato, contraffatto, scaduto o non ancora valido.",
        "error.forbidden.detail": "È necessario il ruolo %@.",
        "error.rate_limited.detail": "Troppi messaggi; riprova tra %d secondi.",
        "error.body_too_large.detail": "Il corpo della richiesta supera i %d byte.",
        "error.unsupported_media_type.detail": "Il corpo deve essere in formato JSON (Content-Type: application/json).",
        "error.invalid_json.detail": "Il corpo della richiesta non è un JSON valido.",
        "error.json_too_deep.detail": "Il corpo JSON ha più di %d livelli di annidamento.",
        "error.request_timeout.detail": "La richiesta non è stata ricevuta in tempo.",
        "error.internal_error.detail": "Il server non è riuscito a completare la richiesta.",
        "error.not_ready.detail": "L’archivio dati non è aperto o non è stato migrato.",
        "error.locale_not_found.detail": "Non ci sono testi per la localizzazione %@.",
    ]
}
