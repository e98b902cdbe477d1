extension BundledStrings {
    /// Spanish (es). Same keys and format placeholders as `en`, which is the fallback.
    static let es: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "¿Estás seguro?",
        "message.moderation.alert.message": "Piensa en cómo tu comentario podría hacer sentir a los demás y asegúrate de seguir nuestras Normas de la comunidad.",
        "message.moderation.alert.resend": "Enviar de todos modos",
        "message.moderation.alert.edit": "Editar mensaje",
        "message.moderation.alert.delete": "Eliminar mensaje",
        "message.bounce.title": "Mensaje rechazado",
        "message.actions.flag": "Denunciar mensaje",
        "message.actions.flag.confirmation-title": "Denunciar mensaje",
        "message.actions.flag.confirmation-message": "¿Quieres enviar una copia de este mensaje a un moderador para que lo revise?",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "Denunciar",
        "message.actions.edit": "Editar mensaje",
        "message.actions.delete": "Eliminar mensaje",
        "message.actions.delete.confirmation-title": "Eliminar mensaje",
        "message.actions.delete.confirmation-message": "¿Seguro que quieres eliminar este mensaje de forma permanente?",
        "message.actions.delete.confirmation-button": "Eliminar",
        "message.actions.resend": "Enviar de todos modos",
        "message.deleted.text": "Se eliminó este mensaje.",

        // Problem titles, by status.
        "error.400.title": "Solicitud incorrecta",
        "error.401.title": "No autorizado",
        "error.403.title": "Prohibido",
        "error.404.title": "No encontrado",
        "error.405.title": "Método no permitido",
        "error.408.title": "Tiempo de espera de la solicitud agotado",
        "error.409.title": "Conflicto",
        "error.413.title": "Contenido demasiado grande",
        "error.414.title": "URI demasiado largo",
        "error.415.title": "Tipo de medio no admitido",
        "error.417.title": "Expectativa fallida",
        "error.422.title": "Contenido no procesable",
        "error.429.title": "Demasiadas solicitudes",
        "error.431.title": "Campos de encabezado de la solicitud demasiado grandes",
        "error.500.title": "Error interno del servidor",
        "error.501.title": "No implementado",
        "error.503.title": "Servicio no disponible",
        "error.505.title": "Versión de HTTP no admitida",

        // Problem details, by code.
        "error.not_found.detail": "No hay nada en esta ruta.",
        "error.method_not_allowed.detail": "%1$@ no está permitido aquí; permitidos: %2$@.",
        "error.unauthenticated.detail": "Se necesita un token Bearer en el encabezado Authorization.",
        "error.invalid_token.detail": "El token tiene un formato incorrecto, es falso, ha caducado o aún no es válido.",
        "error.forbidden.detail": "Se necesita el rol %@.",
        "error.rate_limited.detail": "Demasiados mensajes; vuelve a intentarlo en %d segundos.",
        "error.body_too_large.detail": "El cuerpo de la solicitud supera los %d bytes.",
        "error.unsupported_media_type.detail": "El cuerpo debe ser JSON (Content-Type: application/json).",
        "error.invalid_json.detail": "El cuerpo de la solicitud no es un JSON válido.",
        "error.json_too_deep.detail": "El cuerpo JSON tiene más de %d niveles de anidamiento.",
        "error.request_timeout.detail": "La solicitud no se recibió a tiempo.",
        "error.internal_error.detail": "El servidor no pudo completar la solicitud.",
        "error.not_ready.detail": "El almacén de datos no está abierto o no se ha migrado.",
        "error.locale_not_found.detail": "No hay textos para la configuración regional %@.",
    ]
}
