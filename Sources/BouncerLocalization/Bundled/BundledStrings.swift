/// The translations that ship with Bouncer, written for this project. Each locale's file has
/// every key of the English one, with the same placeholders; a test checks both.
public enum BundledStrings {
    /// Every bundled locale by its canonical tag.
    public static let all: [String: [String: String]] = [
        "en": en, "de": de, "es": es, "fr": fr, "it": it, "pt": pt, "pt-BR": ptBR, "nl": nl,
        "ja": ja, "ko": ko, "zh-Hans": zhHans, "ru": ru, "tr": tr, "ar": ar, "he": he, "pl": pl, "sv": sv,
    ]

    /// The keys Bouncer knows, in a stable order.
    public static let keys: [String] = en.keys.sorted()

    /// Tags answered by another bundled locale: a bare `zh` conventionally means Simplified.
    static let aliases: [String: String] = ["zh": "zh-Hans"]
}
