extension BundledStrings {
    /// Russian (ru). Same keys and format placeholders as `en`, which is the fallback.
    static let ru: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "Вы уверены?",
        "message.moderation.alert.message": "Подумайте, какие чувства ваш комментарий может вызвать у других, и обязательно соблюдайте наши Правила сообщества.",
        "message.moderation.alert.resend": "Всё равно отправить",
        "message.moderation.alert.edit": "Изменить сообщение",
        "message.moderation.alert.delete": "Удалить сообщение",
        "message.bounce.title": "Сообщение отклонено",
        "message.actions.flag": "Пожаловаться",
        "message.actions.flag.confirmation-title": "Жалоба на сообщение",
        "message.actions.flag.confirmation-message": "Отправить копию этого сообщения модератору для дальнейшей проверки?",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "Пожаловаться",
        "message.actions.edit": "Изменить сообщение",
        "message.actions.delete": "Удалить сообщение",
        "message.actions.delete.confirmation-title": "Удалить сообщение",
        "message.actions.delete.confirmation-message": "Вы уверены, что хотите безвозвратно удалить это сообщение?",
        "message.actions.delete.confirmation-button": "Удалить",
        "message.actions.resend": "Всё равно отправить",
        "message.deleted.text": "Это сообщение удалено.",

        // Problem titles, by status.
        "error.400.title": "Неверный запрос",
        "error.401.title": "Не авторизован",
        "error.403.title": "Доступ запрещён",
        "error.404.title": "Не найдено",
        "error.405.title": "Метод не поддерживается",
        "error.408.title": "Истекло время ожидания запроса",
        "error.409.title": "Конфликт",
        "error.413.title": "Содержимое слишком велико",
        "error.414.title": "URI слишком длинный",
        "error.415.title": "Неподдерживаемый тип данных",
        "error.417.title": "Ожидание не выполнено",
        "error.422.title": "Необрабатываемое содержимое",
        "error.429.title": "Слишком много запросов",
        "error.431.title": "Поля заголовка запроса слишком велики",
        "error.500.title": "Внутренняя ошибка сервера",
        "error.501.title": "Не реализовано",
        "error.503.title": "Сервис недоступен",
        "error.505.title": "Версия HTTP не поддерживается",

        // Problem details, by code.
        "error.not_found.detail": "По этому пути ничего нет.",
        "error.method_not_allowed.detail": "Метод %1$@ здесь не разрешён; разрешены: %2$@.",
        "error.unauthenticated.detail": "Требуется bearer-токен в заголовке Authorization.",
        "error.invalid_token.detail": "Токен повреждён, подделан, просрочен или ещё не действителен.",
        "error.forbidden.detail": "Требуется роль %@.",
        "error.rate_limited.detail": "Слишком много сообщений; повторите попытку через %d с.",
        "error.body_too_large.detail": "Размер тела запроса превышает %d Б.",
        "error.unsupported_media_type.detail": "Тело запроса должно быть в формате JSON (Content-Type: application/json).",
        "error.invalid_json.detail": "Тело запроса не является корректным JSON.",
        "error.json_too_deep.detail": "Глубина вложенности тела JSON превышает %d.",
        "error.request_timeout.detail": "Запрос не был получен вовремя.",
        "error.internal_error.detail": "Серверу не удалось выполнить запрос.",
        "error.not_ready.detail": "Хранилище не открыто или не прошло миграцию.",
        "error.locale_not_found.detail": "Нет текстов для локали %@.",
    ]
}
