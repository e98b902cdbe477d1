/// The translations that ship with Bouncer, written for this project. Each is a plain
/// `Translations/<locale>.strings` file (an app's `Localizable.strings` for that locale, in the
/// same format), embedded in the binary and read with `StringsFile`, the parser that reads
/// overrides. Each locale's file has every key of the English one, with the same placeholders;
/// a test checks both.
public enum BundledStrings {
    /// Every bundled locale by its canonical tag.
    public static let all: [String: [String: String]] = files.mapValues(\.table)

    /// English: the source texts, and the last fallback for every other locale.
    public static let en = all["en", default: [:]]

    /// The keys Bouncer knows, in a stable order.
    public static let keys: [String] = en.keys.sorted()

    /// Tags answered by another bundled locale: a bare `zh` conventionally means Simplified.
    static let aliases: [String: String] = ["zh": "zh-Hans"]

    private static let files: [String: [UInt8]] = [
        "en": EmbeddedFiles.en_strings, "de": EmbeddedFiles.de_strings, "es": EmbeddedFiles.es_strings,
        "fr": EmbeddedFiles.fr_strings, "it": EmbeddedFiles.it_strings, "pt": EmbeddedFiles.pt_strings,
        "pt-BR": EmbeddedFiles.pt_BR_strings, "nl": EmbeddedFiles.nl_strings, "ja": EmbeddedFiles.ja_strings,
        "ko": EmbeddedFiles.ko_strings, "zh-Hans": EmbeddedFiles.zh_Hans_strings, "ru": EmbeddedFiles.ru_strings,
        "tr": EmbeddedFiles.tr_strings, "ar": EmbeddedFiles.ar_strings, "he": EmbeddedFiles.he_strings,
        "pl": EmbeddedFiles.pl_strings, "sv": EmbeddedFiles.sv_strings,
    ]
}

private extension [UInt8] {
    /// The file's table. The files are part of the build and a test parses each: one that does
    /// not parse is a broken build, not something to run with.
    var table: [String: String] {
        do {
            return try StringsFile.parseDictionary(self)
        } catch {
            preconditionFailure("a bundled .strings file does not parse: \(error)")
        }
    }
}
