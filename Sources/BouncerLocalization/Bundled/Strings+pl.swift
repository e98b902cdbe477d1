extension BundledStrings {
    /// Polish (pl). Same keys and format placeholders as `en`, which is the fallback.
    static let pl: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "Na pewno?",
        "message.moderation.alert.message": "Zastanów się, jak Twój komentarz może wpłynąć na innych, i przestrzegaj naszych Zasad społeczności.",
        "message.moderation.alert.resend": "Wyślij mimo to",
        "message.moderation.alert.edit": "Edytuj wiadomość",
        "message.moderation.alert.delete": "Usuń wiadomość",
        "message.bounce.title": "Wiadomość została odrzucona",
        "message.actions.flag": "Zgłoś wiadomość",
        "message.actions.flag.confirmation-title": "Zgłoś wiadomość",
        "message.actions.flag.confirmation-message": "Czy chcesz wysłać kopię tej wiadomości do moderatora w celu dalszej weryfikacji?",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "Zgłoś",
        "message.actions.edit": "Edytuj wiadomość",
        "message.actions.delete": "Usuń wiadomość",
        "message.actions.delete.confirmation-title": "Usuń wiadomość",
        "message.actions.delete.confirmation-message": "Czy na pewno chcesz trwale usunąć tę wiadomość?",
        "message.actions.delete.confirmation-button": "Usuń",
        "message.actions.resend": "Wyślij mimo to",
        "message.deleted.text": "Ta wiadomość została usunięta.",

        // Problem titles, by status.
        "error.400.title": "Nieprawidłowe żądanie",
        "error.401.title": "Brak autoryzacji",
        "error.403.title": "Dostęp zabroniony",
        "error.404.title": "Nie znaleziono",
        "error.405.title": "Niedozwolona metoda",
        "error.408.title": "Przekroczono limit czasu żądania",
        "error.409.title": "Konflikt",
        "error.413.title": "Zbyt duża zawartość",
        "error.414.title": "Zbyt długi URI",
        "error.415.title": "Nieobsługiwany typ zawartości",
        "error.417.title": "Oczekiwanie nie powiodło się",
        "error.422.title": "Nieprzetwarzalna zawartość",
        "error.429.title": "Zbyt wiele żądań",
        "error.431.title": "Zbyt duże pola nagłówka żądania",
        "error.500.title": "Wewnętrzny błąd serwera",
        "error.501.title": "Nie zaimplementowano",
        "error.503.title": "Usługa niedostępna",
        "error.505.title": "Nieobsługiwana wersja HTTP",

        // Problem details, by code.
        "error.not_found.detail": "Pod tą ścieżką nic nie ma.",
        "error.method_not_allowed.detail": "Metoda %1$@ jest tu niedozwolona; dozwolone: %2$@.",
        "error.unauthenticated.detail": "Wymagany jest token Bearer w nagłówku Authorization.",
        "error.invalid_token.detail": "Token jest nieprawidłowo sformatowany, sfałszowany, wygasł lub nie jest jeszcze ważny.",
        "error.forbidden.detail": "Wymagana jest rola %@.",
        "error.rate_limited.detail": "Zbyt wiele wiadomości; spróbuj ponownie za %d s.",
        "error.body_too_large.detail": "Treść żądania przekracza limit %d B.",
        "error.unsupported_media_type.detail": "Treść musi być w formacie JSON (Content-Type: application/json).",
        "error.invalid_json.detail": "Treść żądania nie jest prawidłowym JSON-em.",
        "error.json_too_deep.detail": "Głębokość zagnieżdżenia treści JSON przekracza %d.",
        "error.request_timeout.detail": "Żądanie nie zostało odebrane na czas.",
        "error.internal_error.detail": "Serwer nie mógł zrealizować żądania.",
        "error.not_ready.detail": "Magazyn danych nie jest otwarty lub nie został zmigrowany.",
        "error.locale_not_found.detail": "Brak tekstów dla ustawień regionalnych %@.",
    ]
}
