extension BundledStrings {
    /// French (fr). Same keys and format placeholders as `en`, which is the fallback.
    static let fr: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "Êtes-vous sûr ?",
        "message.moderation.alert.message": "Pensez à l’effet que votre commentaire pourrait avoir sur les autres et veillez à respecter nos Règles de la communauté.",
        "message.moderation.alert.resend": "Envoyer quand même",
        "message.moderation.alert.edit": "Modifier le message",
        "message.moderation.alert.delete": "Supprimer le message",
        "message.bounce.title": "Message rejeté",
        "message.actions.flag": "Signaler le message",
        "message.actions.flag.confirmation-title": "Signaler le message",
        "message.actions.flag.confirmation-message": "Voulez-vous envoyer une copie de ce message à un modérateur pour qu’il l’examine ?",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "Signaler",
        "message.actions.edit": "Modifier le message",
        "message.actions.delete": "Supprimer le message",
        "message.actions.delete.confirmation-title": "Supprimer le message",
        "message.actions.delete.confirmation-message": "Voulez-vous vraiment supprimer définitivement ce message ?",
        "message.actions.delete.confirmation-button": "Supprimer",
        "message.actions.resend": "Envoyer quand même",
        "message.deleted.text": "Ce message a été supprimé.",

        // Problem titles, by status.
        "error.400.title": "Requête incorrecte",
        "error.401.title": "Non autorisé",
        "error.403.title": "Interdit",
        "error.404.title": "Introuvable",
        "error.405.title": "Méthode non autorisée",
        "error.408.title": "Délai d’attente de la requête dépassé",
        "error.409.title": "Conflit",
        "error.413.title": "Contenu trop volumineux",
        "error.414.title": "URI trop longue",
        "error.415.title": "Type de média non pris en charge",
        "error.417.title": "Attente non satisfaite",
        "error.422.title": "Contenu non traitable",
        "error.429.title": "Trop de requêtes",
        "error.431.title": "Champs d’en-tête de requête trop volumineux",
        "error.500.title": "Erreur interne du serveur",
        "error.501.title": "Non implémenté",
        "error.503.title": "Service indisponible",
        "error.505.title": "Version HTTP non prise en charge",

        // Problem details, by code.
        "error.not_found.detail": "Il n’y a rien à ce chemin.",
        "error.method_not_allowed.detail": "La méthode %1$@ n’est pas autorisée ici ; méthodes autorisées : %2$@.",
        "error.unauthenticated.detail": "Un jeton Bearer est requis dans l’en-tête Authorization.",
        "error.invalid_token.detail": "Le jeton est mal formé, falsifié, expiré ou pas encore valide.",
        "error.forbidden.detail": "Le rôle %@ est requis.",
        "error.rate_limited.detail": "Trop de messages ; réessayez dans %d secondes.",
        "error.body_too_large.detail": "Le corps de la requête dépasse %d octets.",
        "error.unsupported_media_type.detail": "Le corps doit être au format JSON (Content-Type: application/json).",
        "error.invalid_json.detail": "Le corps de la requête n’est pas du JSON valide.",
        "error.json_too_deep.detail": "Le corps JSON comporte plus de %d niveaux d’imbrication.",
        "error.request_timeout.detail": "La requête n’a pas été reçue à temps.",
        "error.internal_error.detail": "Le serveur n’a pas pu traiter la requête.",
        "error.not_ready.detail": "Le stockage n’est pas ouvert ou n’a pas été migré.",
        "error.locale_not_found.detail": "Aucun texte pour les paramètres régionaux %@.",
    ]
}
