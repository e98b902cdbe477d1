extension BundledStrings {
    /// Turkish (tr). Same keys and format placeholders as `en`, which is the fallback.
    static let tr: [String: String] = [
        // The texts of Stream Chat's bounced-message alert and flag action, as the SDKs name them.
        "message.moderation.alert.title": "Emin misin?",
        "message.moderation.alert.message": "Yorumunun başkalarını nasıl hissettirebileceğini düşün ve Topluluk Kurallarımıza uymaya özen göster.",
        "message.moderation.alert.resend": "Yine de gönder",
        "message.moderation.alert.edit": "Mesajı düzenle",
        "message.moderation.alert.delete": "Mesajı sil",
        "message.bounce.title": "Mesaj reddedildi",
        "message.actions.flag": "Mesajı bildir",
        "message.actions.flag.confirmation-title": "Mesajı bildir",
        "message.actions.flag.confirmation-message": "Daha ayrıntılı inceleme için bu mesajın bir kopyasını moderatöre göndermek istiyor musun?",

        // Bouncer's own: the other message actions and their confirmations.
        "message.actions.flag.confirmation-button": "Bildir",
        "message.actions.edit": "Mesajı düzenle",
        "message.actions.delete": "Mesajı sil",
        "message.actions.delete.confirmation-title": "Mesajı sil",
        "message.actions.delete.confirmation-message": "Bu mesajı kalıcı olarak silmek istediğinden emin misin?",
        "message.actions.delete.confirmation-button": "Sil",
        "message.actions.resend": "Yine de gönder",
        "message.deleted.text": "Bu mesaj silindi.",

        // Problem titles, by status.
        "error.400.title": "Hatalı istek",
        "error.401.title": "Yetkisiz",
        "error.403.title": "Yasak",
        "error.404.title": "Bulunamadı",
        "error.405.title": "İzin verilmeyen yöntem",
        "error.408.title": "İstek zaman aşımı",
        "error.409.title": "Çakışma",
        "error.413.title": "İçerik çok büyük",
        "error.414.title": "URI çok uzun",
        "error.415.title": "Desteklenmeyen medya türü",
        "error.417.title": "Beklenti karşılanamadı",
        "error.422.title": "İşlenemeyen içerik",
        "error.429.title": "Çok fazla istek",
        "error.431.title": "İstek başlık alanları çok büyük",
        "error.500.title": "Dahili sunucu hatası",
        "error.501.title": "Uygulanmadı",
        "error.503.title": "Hizmet kullanılamıyor",
        "error.505.title": "HTTP sürümü desteklenmiyor",

        // Problem details, by code.
        "error.not_found.detail": "Bu yolda hiçbir şey yok.",
        "error.method_not_allowed.detail": "%1$@ burada kullanılamaz; izin verilenler: %2$@.",
        "error.unauthenticated.detail": "Bunun için Authorization başlığında bir Bearer belirteci gerekir.",
        "error.invalid_token.detail": "Belirteç hatalı biçimlendirilmiş, sahte, süresi dolmuş veya henüz geçerli değil.",
        "error.forbidden.detail": "Bunun için %@ rolü gerekir.",
        "error.rate_limited.detail": "Çok fazla mesaj; %d saniye sonra tekrar dene.",
        "error.body_too_large.detail": "İstek gövdesi %d bayttan büyük.",
        "error.unsupported_media_type.detail": "Gövde JSON olmalıdır (Content-Type: application/json).",
        "error.invalid_json.detail": "İstek gövdesi geçerli bir JSON değil.",
        "error.json_too_deep.detail": "JSON gövdesi %d düzeyden daha derin iç içe geçmiş.",
        "error.request_timeout.detail": "İstek zamanında alınmadı.",
        "error.internal_error.detail": "Sunucu isteği tamamlayamadı.",
        "error.not_ready.detail": "Veri deposu açık değil veya taşınmamış.",
        "error.locale_not_found.detail": "%@ yerel ayarı için metin yok.",
    ]
}
