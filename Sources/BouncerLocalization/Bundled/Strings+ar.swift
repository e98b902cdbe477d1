extension BundledStrings {
    /// Arabic (ar). Same keys and format placeholders as `en`, which is the fallback.
    static let ar: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "هل أنت متأكد؟",
        "message.moderation.alert.message": "فكّر في الأثر الذي قد يتركه تعليقك في الآخرين، واحرص على اتباع إرشادات المجتمع لدينا.",
        "message.moderation.alert.resend": "الإرسال على أي حال",
        "message.moderation.alert.edit": "تعديل الرسالة",
        "message.moderation.alert.delete": "حذف الرسالة",
        "message.bounce.title": "تم رفض الرسالة",
        "message.actions.flag": "الإبلاغ عن الرسالة",
        "message.actions.flag.confirmation-title": "الإبلاغ عن الرسالة",
        "message.actions.flag.confirmation-message": "هل تريد إرسال نسخة من هذه الرسالة إلى أحد المشرفين لمزيد من التحقق؟",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "إبلاغ",
        "message.actions.edit": "تعديل الرسالة",
        "message.actions.delete": "حذف الرسالة",
        "message.actions.delete.confirmation-title": "حذف الرسالة",
        "message.actions.delete.confirmation-message": "هل تريد بالتأكيد حذف هذه الرسالة نهائيًا؟",
        "message.actions.delete.confirmation-button": "حذف",
        "message.actions.resend": "الإرسال على أي حال",
        "message.deleted.text": "تم حذف هذه الرسالة.",

        // Problem titles, by status.
        "error.400.title": "طلب غير صالح",
        "error.401.title": "غير مصرّح",
        "error.403.title": "ممنوع",
        "error.404.title": "غير موجود",
        "error.405.title": "الطريقة غير مسموح بها",
        "error.408.title": "انتهت مهلة الطلب",
        "error.409.title": "تعارض",
        "error.413.title": "المحتوى كبير جدًا",
        "error.414.title": "عنوان URI طويل جدًا",
        "error.415.title": "نوع وسائط غير مدعوم",
        "error.417.title": "فشل التوقع",
        "error.422.title": "محتوى غير قابل للمعالجة",
        "error.429.title": "طلبات كثيرة جدًا",
        "error.431.title": "حقول ترويسة الطلب كبيرة جدًا",
        "error.500.title": "خطأ داخلي في الخادم",
        "error.501.title": "غير مُنفَّذ",
        "error.503.title": "الخدمة غير متاحة",
        "error.505.title": "إصدار HTTP غير مدعوم",

        // Problem details, by code.
        "error.not_found.detail": "لا يوجد شيء في هذا المسار.",
        "error.method_not_allowed.detail": "الطريقة %1$@ غير مسموح بها هنا؛ المسموح بها: %2$@.",
        "error.unauthenticated.detail": "يتطلب هذا رمزًا مميزًا من نوع Bearer في ترويسة Authorization.",
        "error.invalid_token.detail": "الرمز المميز تالف أو مزوّر أو منتهي الصلاحية أو غير صالح بعد.",
        "error.forbidden.detail": "يتطلب هذا الدور %@.",
        "error.rate_limited.detail": "رسائل كثيرة جدًا؛ حاول مجددًا بعد %d ثانية.",
        "error.body_too_large.detail": "حجم نص الطلب أكبر من %d بايت.",
        "error.unsupported_media_type.detail": "يجب أن يكون نص الطلب بتنسيق JSON (ترويسة Content-Type: application/json).",
        "error.invalid_json.detail": "نص الطلب ليس JSON صالحًا.",
        "error.json_too_deep.detail": "يتجاوز عمق التداخل في نص JSON الحد الأقصى (%d).",
        "error.request_timeout.detail": "لم يتم استلام الطلب في الوقت المحدد.",
        "error.internal_error.detail": "تعذّر على الخادم إكمال الطلب.",
        "error.not_ready.detail": "مخزن البيانات غير مفتوح أو لم يتم ترحيله.",
        "error.locale_not_found.detail": "لا توجد نصوص للإعدادات المحلية %@.",
    ]
}
