extension BundledStrings {
    /// Hebrew (he). Same keys and format placeholders as `en`, which is the fallback.
    static let he: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "להמשיך בכל זאת?",
        "message.moderation.alert.message": "כדאי לחשוב איך התגובה שלך עלולה לגרום לאחרים להרגיש, ולהקפיד לפעול לפי הנחיות הקהילה שלנו.",
        "message.moderation.alert.resend": "לשלוח בכל זאת",
        "message.moderation.alert.edit": "עריכת ההודעה",
        "message.moderation.alert.delete": "מחיקת ההודעה",
        "message.bounce.title": "ההודעה נדחתה",
        "message.actions.flag": "דיווח על ההודעה",
        "message.actions.flag.confirmation-title": "דיווח על ההודעה",
        "message.actions.flag.confirmation-message": "לשלוח עותק של ההודעה הזו למנהל לבדיקה נוספת?",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "דיווח",
        "message.actions.edit": "עריכת ההודעה",
        "message.actions.delete": "מחיקת ההודעה",
        "message.actions.delete.confirmation-title": "מחיקת ההודעה",
        "message.actions.delete.confirmation-message": "למחוק את ההודעה הזו לצמיתות?",
        "message.actions.delete.confirmation-button": "מחיקה",
        "message.actions.resend": "לשלוח בכל זאת",
        "message.deleted.text": "ההודעה הזו נמחקה.",

        // Problem titles, by status.
        "error.400.title": "בקשה שגויה",
        "error.401.title": "לא מורשה",
        "error.403.title": "גישה אסורה",
        "error.404.title": "לא נמצא",
        "error.405.title": "השיטה אינה מותרת",
        "error.408.title": "תם הזמן הקצוב לבקשה",
        "error.409.title": "התנגשות",
        "error.413.title": "התוכן גדול מדי",
        "error.414.title": "ה־URI ארוך מדי",
        "error.415.title": "סוג המדיה אינו נתמך",
        "error.417.title": "הציפייה נכשלה",
        "error.422.title": "לא ניתן לעבד את התוכן",
        "error.429.title": "יותר מדי בקשות",
        "error.431.title": "שדות הכותרת של הבקשה גדולים מדי",
        "error.500.title": "שגיאת שרת פנימית",
        "error.501.title": "לא מיושם",
        "error.503.title": "השירות אינו זמין",
        "error.505.title": "גרסת HTTP אינה נתמכת",

        // Problem details, by code.
        "error.not_found.detail": "אין כלום בנתיב הזה.",
        "error.method_not_allowed.detail": "השיטה %1$@ אינה מותרת כאן; מותרות: %2$@.",
        "error.unauthenticated.detail": "נדרש אסימון Bearer בכותרת Authorization.",
        "error.invalid_token.detail": "האסימון פגום, מזויף, פג תוקפו או שעדיין אינו בתוקף.",
        "error.forbidden.detail": "נדרש התפקיד %@.",
        "error.rate_limited.detail": "יותר מדי הודעות; אפשר לנסות שוב בעוד %d שניות.",
        "error.body_too_large.detail": "גוף הבקשה גדול מ־%d בתים.",
        "error.unsupported_media_type.detail": "גוף הבקשה חייב להיות בפורמט JSON (כותרת Content-Type: application/json).",
        "error.invalid_json.detail": "גוף הבקשה אינו JSON תקין.",
        "error.json_too_deep.detail": "גוף ה־JSON מקונן ביותר מ־%d רמות.",
        "error.request_timeout.detail": "הבקשה לא התקבלה בזמן.",
        "error.internal_error.detail": "השרת לא הצליח להשלים את הבקשה.",
        "error.not_ready.detail": "מאגר הנתונים אינו פתוח או שלא עבר הגירה.",
        "error.locale_not_found.detail": "אין טקסטים עבור הגדרת האזור %@.",
    ]
}
